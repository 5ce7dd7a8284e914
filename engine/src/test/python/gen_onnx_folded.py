#!/usr/bin/python3
"""Generates engine/src/test/resources/onnx/folded/: a small ResNet-shaped model exported by PyTorch in
eval mode, as torchvision models usually are, so the exporter folds each batch norm into its convolution
and names the folded weights by its own numbers (onnx::Conv_52) rather than by the module path.

  model.onnx      torch.onnx.export of the model (eval mode, opset 13, default training=EVAL)
  modules.json    {"convs": the module path of every Conv2d (torch's named_modules),
                   "linears": the module path of every Linear}

The import names a folded weight by the module that reads it (layer1.0.conv1 -> layer1_0_conv1_weight);
OnnxImportNamesTest checks that against modules.json, which comes from PyTorch, not from the import.

Run: /usr/bin/python3 engine/src/test/python/gen_onnx_folded.py  (Debian's python3-torch)
"""
import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

OUT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "resources", "onnx", "folded"))


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(y)) + x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(4)
        self.layer1 = nn.Sequential(Block(4), Block(4))
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layer1(x)
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def main():
    torch.manual_seed(46)
    net = Net()
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)
    net.eval()
    os.makedirs(OUT, exist_ok=True)
    torch.onnx.export(net, (torch.zeros(1, 3, 6, 6),), os.path.join(OUT, "model.onnx"), opset_version=13,
                      input_names=["input"], output_names=["output"])
    modules = {"convs": [n for n, m in net.named_modules() if isinstance(m, nn.Conv2d)],
               "linears": [n for n, m in net.named_modules() if isinstance(m, nn.Linear)]}
    with open(os.path.join(OUT, "modules.json"), "w") as f:
        json.dump(modules, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
