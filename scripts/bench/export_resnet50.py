"""Exports a torchvision ResNet-50 (random weights) to ONNX for the retention measurements in the README
("What a model's size costs"): batch 8 x 3 x 224 x 224, opset 13, BatchNorm kept (TrainingMode.PRESERVE
from model.eval(); the export from model.train() does not import). The file (about 100 MB) is not committed.

Run: /usr/bin/python3 scripts/bench/export_resnet50.py OUT.onnx [BATCH]
Then: xvfb-run -a ./gradscope bench-ui --open OUT.onnx --retain all|fit|none
"""
import sys

import torch
import torchvision.models as tv


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "resnet50_b8.onnx"
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    torch.manual_seed(0)
    model = tv.resnet50(weights=None).eval()
    x = torch.randn(batch, 3, 224, 224)
    torch.onnx.export(model, x, out, opset_version=13, training=torch.onnx.TrainingMode.PRESERVE,
                      input_names=["input"], output_names=["logits"])
    print("wrote", out)


if __name__ == "__main__":
    main()
