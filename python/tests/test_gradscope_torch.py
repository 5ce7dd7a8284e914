"""Tests of python/gradscope_torch.py (run: /usr/bin/python3 python/tests/test_gradscope_torch.py; the JUnit test
CaptureHelperTest runs it and skips where torch is absent)."""
import json
import os
import sys
import tempfile
import unittest

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import gradscope_torch as gt  # noqa: E402


def small_cnn():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(2, 3, 3, bias=False), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(), nn.Linear(3 * 4 * 4, 4))


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


class Custom(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x):
        return Square.apply(self.lin(x))


class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x):
        y = self.lin(x)
        return y if y.sum() > 0 else -y


class CaptureTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.out = os.path.join(self.tmp, "step")
        self.x = torch.randn(2, 2, 6, 6, generator=torch.Generator().manual_seed(1))
        self.t = torch.tensor([1, 3])

    def refused(self, *args, match):
        with self.assertRaises(gt.CaptureError) as e:
            gt.capture(*args)
        self.assertIn(match, str(e.exception))
        self.assertEqual(1, len(str(e.exception).splitlines()), str(e.exception))
        self.assertFalse(os.path.exists(self.out), "a refused capture wrote a folder")
        self.assertEqual([], os.listdir(self.tmp), "a refused capture left files behind")

    def test_the_model_is_left_as_found(self):
        m = small_cnn().train()
        m[3].eval()  # a mixed mode is kept too
        m[4].weight.grad = torch.ones_like(m[4].weight)
        before = {k: v.clone() for k, v in m.state_dict().items()}
        gt.capture(m, self.x, self.t, nn.CrossEntropyLoss(), self.out)
        for k, v in m.state_dict().items():
            self.assertTrue(torch.equal(before[k], v), k + " changed (batch norm statistics are buffers)")
        self.assertTrue(m.training and m[1].training and not m[3].training)
        self.assertTrue(torch.equal(m[4].weight.grad, torch.ones_like(m[4].weight)), ".grad changed")
        self.assertIsNone(m[0].weight.grad)

    def test_the_folder_holds_pytorchs_step(self):
        m = small_cnn().train()
        gt.capture(m, self.x, self.t, nn.CrossEntropyLoss(label_smoothing=0.2), self.out)
        man = json.load(open(os.path.join(self.out, "manifest.json")))
        self.assertEqual(gt.FORMAT, man["format"])
        self.assertTrue(man["training"])
        self.assertEqual("Sequential", man["model"])
        self.assertEqual({"model." + n: n for n, _ in m.named_parameters()}, man["parameters"])
        # an independent float64 run of the same step
        m64 = small_cnn().double().train()
        m64.load_state_dict(m.state_dict())
        loss = F.cross_entropy(m64(self.x.double()), self.t, label_smoothing=0.2)
        loss.backward()
        self.assertAlmostEqual(float(loss), float(np.load(os.path.join(self.out, man["loss"]["file"]))), places=5)
        for n, p in m64.named_parameters():
            g = np.load(os.path.join(self.out, man["gradients"][n]))
            self.assertLess(np.linalg.norm(g - p.grad.numpy()) / np.linalg.norm(p.grad.numpy()), 1e-5, n)
        self.assertEqual({"0", "1", "2", "3", "4"}, set(man["values"]))
        np.testing.assert_allclose(np.load(os.path.join(self.out, "batch", "input0.npy")), self.x.numpy())

    def test_cross_entropy_as_plain_ops_equals_pytorchs(self):
        x = torch.randn(4, 5, 3, dtype=torch.float64)
        t = torch.tensor([[0, 1, 4], [2, -100, 3], [1, 1, 1], [4, 0, -100]])
        w = torch.rand(5, dtype=torch.float64) + 0.5
        probs = torch.softmax(torch.randn(4, 5, 3, dtype=torch.float64), 1)
        cases = [dict(), dict(label_smoothing=0.1), dict(weight=w), dict(weight=w, label_smoothing=0.3), dict(reduction="sum"),
                 dict(ignore_index=1, label_smoothing=0.2)]
        for kw in cases:
            t = t.clamp(min=0) if "ignore_index" in kw else t
            q, div = gt._class_weights(x, t, kw.get("weight"), kw.get("ignore_index", -100), kw.get("label_smoothing", 0.0))
            mine = -(q * torch.log_softmax(x, 1)).sum() / (div if kw.get("reduction", "mean") == "mean" else 1)
            self.assertAlmostEqual(float(F.cross_entropy(x, t, **kw)), float(mine), places=10, msg=str(kw))
        q, div = gt._class_weights(x, probs, None, -100, 0.1)
        self.assertAlmostEqual(float(F.cross_entropy(x, probs, label_smoothing=0.1)),
                               float(-(q * torch.log_softmax(x, 1)).sum() / div), places=10)

    def test_an_earlier_capture_is_replaced(self):
        m = small_cnn().train()
        gt.capture(m, self.x, self.t, nn.CrossEntropyLoss(), self.out)
        open(os.path.join(self.out, "torch", "stale.npy"), "w").close()
        gt.capture(m, self.x, self.t, nn.CrossEntropyLoss(), self.out)
        self.assertFalse(os.path.exists(os.path.join(self.out, "torch", "stale.npy")))

    def test_a_custom_function_is_captured_with_a_note(self):
        with self.assertWarns(UserWarning) as w:
            gt.capture(Custom(), torch.randn(3, 4), torch.tensor([0, 1, 2]), nn.CrossEntropyLoss(), self.out)
        self.assertIn("custom autograd.Function Square", str(w.warning))
        notes = json.load(open(os.path.join(self.out, "manifest.json")))["notes"]
        self.assertEqual(1, len(notes))
        self.assertIn("its own backward is not", notes[0])

    def test_refusals(self):
        os.makedirs(self.out)
        open(os.path.join(self.out, "notes.txt"), "w").close()
        with self.assertRaises(gt.CaptureError) as e:
            gt.capture(small_cnn(), self.x, self.t, nn.CrossEntropyLoss(), self.out)
        self.assertIn("not empty", str(e.exception))
        os.remove(os.path.join(self.out, "notes.txt"))
        os.rmdir(self.out)
        x = torch.randn(3, 4)
        self.refused(Branchy(), x, torch.tensor([0, 1, 2]), nn.CrossEntropyLoss(), self.out, match="branches on a tensor's value")
        drop = nn.Sequential(nn.Linear(4, 3), nn.Dropout(0.5)).train()
        self.refused(drop, x, torch.tensor([0, 1, 2]), nn.CrossEntropyLoss(), self.out, match="dropout 1 (p=0.5)")
        self.refused(nn.Linear(4, 3), x, torch.tensor([0, 1, 2]), nn.CrossEntropyLoss(reduction="none"), self.out,
                     match="must give a scalar float tensor, not a tensor of shape [3]")
        self.refused(nn.Linear(4, 3), x, [1, 2], nn.CrossEntropyLoss(), self.out, match="targets[0] is a int")
        self.refused(nn.Linear(4, 3).double(), x.double(), torch.tensor([0, 1, 2]), nn.CrossEntropyLoss(), self.out,
                     match="float32 models")


if __name__ == "__main__":
    unittest.main()
