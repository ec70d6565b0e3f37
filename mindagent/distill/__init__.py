"""Distillation: recordings of a good dispatcher (the planner, people) turned into (prompt,
answer) pairs (`mindagent.distill.dataset`), and a LoRA fine-tuning recipe for a small model on
them (`mindagent.distill.lora`, needing the ``distill`` extra)."""
