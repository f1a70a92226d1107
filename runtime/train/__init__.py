"""`rt.train`: checkpoints of training state (`Checkpoint`, `CheckpointManager`,
`latest_checkpoint`), in the safetensors format."""

from runtime.train.checkpoint import Checkpoint, CheckpointManager, latest_checkpoint
from runtime.train.safetensors_format import CheckpointError

__all__ = ["Checkpoint", "CheckpointError", "CheckpointManager", "latest_checkpoint"]
