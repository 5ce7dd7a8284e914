"""The op table's PyTorch references, as the engine's specs give them.

Each op spec holds its reference as a Python lambda of the op's parameters (OpSpec.reference);
TorchReferencesTest exports them to resources/torch_references.json, and the generators call the
ops through these, so an op's reference is written once, in its spec.
"""
import json
import os

import torch
import torch.nn.functional as F

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "resources", "torch_references.json")


def load_references(path=PATH):
    """Every op by name: its reference, a function of the op's tensors and attributes."""
    with open(path) as f:
        refs = json.load(f)["references"]
    return {name: eval(text, {"torch": torch, "F": F}) for name, text in refs.items()}
