"""Evaluation: CoS sweeps and their executors, seeds, statistics, scoring, process metrics,
plots and the prompt-ablation study."""
