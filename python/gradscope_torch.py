"""Capture one PyTorch training step for Gradscope: the model and its loss as one ONNX graph, the
batch, and what PyTorch itself computed (the loss, every parameter's gradient, every module's output).

    import gradscope_torch                      # PYTHONPATH=python, or this file copied beside a script
    gradscope_torch.capture(model, images, labels, nn.CrossEntropyLoss(), "step")
    # then: ./gradscope run step/ --out res/   ./gradscope open step/   ./gradscope diff step/

Pure Python over PyTorch (1.13 and later); the `onnx` package is not needed. The folder holds:

    model.onnx        the model and the loss as one graph (opset 13-17); its first output is the loss,
                      the others every module's output (named "value:<module path>")
    manifest.json     names, dtypes and roles of the batch files, ONNX name -> PyTorch name of every
                      parameter and buffer, the loss, the model's class, PyTorch's version, the mode
    batch/*.npy       the batch: the inputs, the targets, and what the loss reads of them
    torch/loss.npy, torch/grad/<parameter>.npy, torch/value/<module>.npy
                      PyTorch's own loss, gradients and module outputs on that batch (float32)

The model is left as found (parameters, buffers, .grad, training mode). What cannot be captured is
refused in one line (CaptureError) and nothing is written: the folder is built beside out_dir and
renamed into place when complete.

Cross-entropy and NLL losses (nn.CrossEntropyLoss, F.cross_entropy, nn.NLLLoss, F.nll_loss, with class
weights, ignore_index and label_smoothing) are exported as -sum(Q * log_softmax(x, 1)) (-sum(Q * x) for
NLL), Q the targets' weights per class computed here and written beside the batch (batch/loss_q*.npy):
PyTorch 1.13 refuses label_smoothing in ONNX, and the loss is then made of ops every importer reads.
"""
import json
import os
import re
import shutil
import tempfile
import warnings

import numpy as np
import torch
import torch.nn.functional as F

FORMAT = "gradscope-step 1"
OPSET = 17
_TORCH_DIR = os.path.dirname(torch.__file__)


class CaptureError(Exception):
    """What capture() could not capture and why, in one line."""


def capture(model, inputs, targets, loss_fn, out_dir, opset=OPSET):
    """Writes the step folder out_dir (new, empty, or an earlier capture's, which is replaced).

    inputs: a tensor or a tuple of tensors passed to model; targets: a tensor or a tuple of tensors;
    loss_fn(model(*inputs), targets) gives the scalar loss. Returns out_dir. Raises CaptureError."""
    inputs = _tensors(inputs, "inputs")
    targets_tuple = _tensors(targets, "targets")
    if not 13 <= opset <= 17:
        raise CaptureError("opset %d: Gradscope reads the opsets 13-17" % opset)
    _check_folder(out_dir)
    saved = _State(model)
    try:
        _check_model(model)
        ref = _reference_run(model, inputs, targets, loss_fn)
        saved.restore()
        losses = _loss_terms(model, inputs, targets, loss_fn)
        saved.restore()
        parent = os.path.dirname(os.path.abspath(out_dir))
        tmp = tempfile.mkdtemp(prefix=".gradscope-step-", dir=parent)
        try:
            names = _export(model, inputs, targets_tuple, targets, loss_fn, losses, ref, opset, tmp)
            saved.restore()
            _write(tmp, model, inputs, targets_tuple, losses, ref, names, opset, loss_fn)
            if os.path.isdir(out_dir):
                shutil.rmtree(out_dir)
            os.rename(tmp, out_dir)
            for note in ref["notes"]:
                warnings.warn("gradscope_torch: " + note, stacklevel=2)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    finally:
        saved.restore()
    return out_dir


# ---- checks --------------------------------------------------------------------------------------

def _tensors(x, what):
    t = x if isinstance(x, (tuple, list)) else (x,)
    for i, v in enumerate(t):
        if not isinstance(v, torch.Tensor):
            raise CaptureError("%s[%d] is a %s, not a tensor: pass a tensor or a tuple of tensors" % (what, i, type(v).__name__))
        if v.is_sparse or v.device.type != "cpu" and False:
            raise CaptureError("%s[%d] is a sparse tensor, which ONNX cannot hold" % (what, i))
    return tuple(t)


def _check_folder(out_dir):
    if os.path.exists(out_dir):
        if not os.path.isdir(out_dir):
            raise CaptureError("%s exists and is not a folder" % out_dir)
        if os.listdir(out_dir) and not os.path.isfile(os.path.join(out_dir, "manifest.json")):
            raise CaptureError("%s is not empty and holds no earlier capture (manifest.json): give a new or empty folder" % out_dir)


def _check_model(model):
    for name, p in model.named_parameters():
        if p.dtype != torch.float32:
            raise CaptureError("parameter %s is %s: the capture reads float32 models" % (name, p.dtype))
    for name, m in model.named_modules():
        if isinstance(m, torch.nn.modules.dropout._DropoutNd) and m.training and m.p > 0:
            raise CaptureError("dropout %s (p=%g) is active in training mode: its random mask cannot be captured; "
                               "set its p to 0 or call .eval() on it for the capture" % (name or "(the model)", m.p))
        if isinstance(m, torch.nn.MultiheadAttention) and m.training and m.dropout > 0:
            raise CaptureError("attention %s has dropout %g in training mode: its random mask cannot be captured"
                               % (name, m.dropout))


class _State:
    """The model as found: parameters, buffers, their .grad and every module's training flag."""

    def __init__(self, model):
        self.model = model
        self.params = [(p, p.detach().clone(), None if p.grad is None else p.grad.detach().clone()) for p in model.parameters()]
        self.buffers = [(b, b.detach().clone()) for b in model.buffers()]
        self.modes = [(m, m.training) for m in model.modules()]

    def restore(self):
        with torch.no_grad():
            for p, value, grad in self.params:
                p.copy_(value)
                p.grad = None if grad is None else grad.clone()
            for b, value in self.buffers:
                b.copy_(value)
        for m, mode in self.modes:
            m.training = mode


# ---- PyTorch's own step ----------------------------------------------------------------------------

def _module_outputs(model, record, calls=None):
    """Forward hooks naming every module's tensor outputs by module path (a second call adds @2; calls counts them)."""
    calls = {} if calls is None else calls
    handles = []
    for name, m in model.named_modules():
        if not name:
            continue

        def hook(mod, args, out, name=name):
            calls[name] = calls.get(name, 0) + 1
            base = name if calls[name] == 1 else "%s@%d" % (name, calls[name])
            flat = [t for t in _flatten(out) if isinstance(t, torch.Tensor) and t.is_floating_point()]
            for i, t in enumerate(flat):
                record(base if i == 0 else "%s#%d" % (base, i), t)
        handles.append(m.register_forward_hook(hook))
    return handles


def _flatten(out):
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _flatten(o)]
    return [out]


def _reference_run(model, inputs, targets, loss_fn):
    values = {}
    handles = _module_outputs(model, lambda n, t: values.__setitem__(n, t.detach().clone()))
    try:
        for p in model.parameters():
            p.grad = None
        loss = loss_fn(model(*inputs), targets)
    finally:
        for h in handles:
            h.remove()
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1 or not loss.is_floating_point():
        raise CaptureError("loss_fn must give a scalar float tensor, not %s" % (
            "a tensor of shape %s" % list(loss.shape) if isinstance(loss, torch.Tensor) else type(loss).__name__))
    if not loss.requires_grad:
        raise CaptureError("the loss does not depend on any parameter (no gradient to capture)")
    notes = ["custom autograd.Function %s: its forward is in the graph, its own backward is not (Gradscope differentiates "
             "the forward; a gradient that differs from PyTorch's there points at that backward)" % n for n in _custom_functions(loss)]
    loss.backward()
    grads = {n: (torch.zeros_like(p) if p.grad is None else p.grad.detach().clone()) for n, p in model.named_parameters()}
    return {"loss": loss.detach().reshape(()).clone(), "grads": grads, "values": values, "notes": notes}


def _custom_functions(loss):
    """The custom autograd.Function classes the loss's backward graph holds, by name, in order."""
    seen, found, stack = set(), [], [loss.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        cls = getattr(fn, "_forward_cls", None)
        if cls is not None and cls.__name__ not in found:
            found.append(cls.__name__)
        stack.extend(f for f, _ in fn.next_functions)
    return sorted(found)


# ---- the loss as plain ops ---------------------------------------------------------------------------

def _class_weights(x, target, weight, ignore_index, smoothing):
    """Q with loss = -sum(Q * log_softmax(x, 1)) for cross-entropy with reduction 'sum' (before the mean's division)
    and its divisor for reduction 'mean'."""
    c = x.shape[1]
    shape = [1, c] + [1] * (x.dim() - 2)
    w = torch.ones(c, dtype=torch.float64) if weight is None else weight.detach().double()
    w = w.reshape(shape)
    if target.is_floating_point():  # class probabilities
        q = target.detach().double() * (1 - smoothing) + smoothing / c
        return q * w, float(np.prod([x.shape[0]] + list(x.shape[2:])))
    t = target.detach().long()
    keep = (t != ignore_index)
    safe = torch.where(keep, t, torch.zeros_like(t))
    onehot = F.one_hot(safe, c).movedim(-1, 1).double() * keep.unsqueeze(1)
    wy = (onehot * w).sum(1)  # w[y_i], 0 where ignored
    q = (1 - smoothing) * onehot * w + smoothing / c * w * keep.unsqueeze(1)
    return q, float(wy.sum())


def _loss_terms(model, inputs, targets, loss_fn):
    """Each cross_entropy / nll_loss call the loss makes, as (Q, log_softmax?) with Q checked against PyTorch's value."""
    terms = []
    ce, nll = F.cross_entropy, F.nll_loss

    def rec_ce(x, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
               label_smoothing=0.0):
        out = ce(x, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing)
        terms.append(_term(x, target, weight, ignore_index, reduction, label_smoothing, True, out, "cross_entropy"))
        return out

    def rec_nll(x, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        out = nll(x, target, weight, size_average, ignore_index, reduce, reduction)
        terms.append(_term(x, target, weight, ignore_index, reduction, 0.0, False, out, "nll_loss"))
        return out

    F.cross_entropy, F.nll_loss = rec_ce, rec_nll
    try:
        with torch.no_grad():
            loss_fn(model(*inputs), targets)
    finally:
        F.cross_entropy, F.nll_loss = ce, nll
    return terms


def _term(x, target, weight, ignore_index, reduction, smoothing, log_softmax, out, what):
    if reduction not in ("mean", "sum"):
        raise CaptureError("%s with reduction='%s': the loss must be a scalar (reduction 'mean' or 'sum')" % (what, reduction))
    if x.dim() < 2:
        raise CaptureError("%s of an input of shape %s: give logits [N, C, ...]" % (what, list(x.shape)))
    q, divisor = _class_weights(x, target, weight, ignore_index, smoothing)
    if reduction == "mean":
        q = q / divisor
    lp = torch.log_softmax(x.detach().double(), 1) if log_softmax else x.detach().double()
    mine = float(-(q * lp).sum())
    if abs(mine - float(out)) > 1e-4 * max(1.0, abs(float(out))):
        raise CaptureError("%s: its value %g could not be written as plain ops (got %g)" % (what, float(out), mine))
    return {"q": q.float(), "log_softmax": log_softmax, "what": what, "smoothing": smoothing, "reduction": reduction,
            "weighted": weight is not None, "ignore_index": ignore_index}


# ---- the export --------------------------------------------------------------------------------------

class _Step(torch.nn.Module):
    """The model and its loss as one module: forward(*inputs, *targets, *Q) -> (loss, *module outputs)."""

    def __init__(self, model, n_in, n_tg, targets_as_given, loss_fn, losses):
        super().__init__()
        self.model = model
        self.n_in, self.n_tg, self.single = n_in, n_tg, targets_as_given
        self.loss_fn, self.losses = loss_fn, losses
        self.outputs = []
        self.calls = {}

    def forward(self, *args):
        inputs, tg, qs = args[:self.n_in], args[self.n_in:self.n_in + self.n_tg], list(args[self.n_in + self.n_tg:])
        targets = tg[0] if self.single else tuple(tg)
        ce, nll = F.cross_entropy, F.nll_loss

        def plain(x, *a, **k):
            q = qs.pop(0)
            return -(q * torch.log_softmax(x, 1)).sum()

        def plain_nll(x, *a, **k):
            return -(qs.pop(0) * x).sum()
        self.outputs = []
        self.calls.clear()
        F.cross_entropy, F.nll_loss = plain, plain_nll
        try:
            loss = self.loss_fn(self.model(*inputs), targets)
        finally:
            F.cross_entropy, F.nll_loss = ce, nll
        return (loss.reshape(()),) + tuple(t for _, t in self.outputs)


def _export(model, inputs, targets, targets_given, loss_fn, losses, ref, opset, folder):
    step = _Step(model, len(inputs), len(targets), not isinstance(targets_given, (tuple, list)), loss_fn, losses)
    # Note: the wrapper says it trains, so the exporter ties only parameters that share storage, never
    # two that hold equal values (LayerNorms initialised to ones); the modules keep their own modes.
    step.training = True
    names = []
    handles = _module_outputs(model, lambda n, t: (step.outputs.append((n, t)), names.append(n)), step.calls)
    args = tuple(inputs) + tuple(targets) + tuple(t["q"] for t in losses)
    in_names = ["input%d" % i for i in range(len(inputs))] + ["target%d" % i for i in range(len(targets))] + \
        ["loss_q%d" % i for i in range(len(losses))]
    path = os.path.join(folder, "model.onnx")
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            # a dry run names the module outputs (the exporter traces once more)
            with torch.no_grad():
                step(*args)
            value_names = list(names)
            names.clear()
            torch.onnx.export(step, args, path, opset_version=opset, do_constant_folding=False,
                              training=torch.onnx.TrainingMode.PRESERVE, input_names=in_names,
                              output_names=["loss"] + ["value:" + n for n in value_names])
    except CaptureError:
        raise
    except Exception as e:  # noqa: BLE001 - the exporter's refusals come in many classes
        raise CaptureError(_export_reason(e)) from None
    finally:
        for h in handles:
            h.remove()
    for w in seen:
        if w.filename.startswith(_TORCH_DIR):
            continue  # PyTorch's own shape checks (batch norm's size test) run once per trace
        if issubclass(w.category, torch.jit.TracerWarning) and "Python boolean" in str(w.message):
            raise CaptureError("the model branches on a tensor's value (%s:%d: %s): the graph would hold only this batch's branch"
                               % (os.path.basename(w.filename), w.lineno, str(w.message).split(".")[0]))
    if value_names != names:
        raise CaptureError("the model's modules ran differently in two runs on the same batch (%d module outputs, then %d): "
                           "a data-dependent or random path" % (len(value_names), len(names)))
    return {"inputs": in_names, "values": value_names}


def _export_reason(e):
    msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    m = re.search(r"Couldn't export Python operator (\w+)", str(e))
    if m:
        return ("the model calls the custom autograd.Function %s, which has no ONNX form: give it a symbolic() "
                "or write it with torch ops" % m.group(1))
    return "torch.onnx.export refused the model: " + msg[:300]


# ---- the folder ------------------------------------------------------------------------------------

def _npy(folder, rel, t):
    path = os.path.join(folder, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.save(path, t.detach().cpu().numpy(), allow_pickle=False)
    return rel


def _file_name(name):
    return re.sub(r"[^A-Za-z0-9._@#-]", "_", name)


def _write(folder, model, inputs, targets, losses, ref, names, opset, loss_fn):
    batch = []
    values = list(inputs) + list(targets) + [t["q"] for t in losses]
    roles = ["input"] * len(inputs) + ["target"] * len(targets) + ["loss weights"] * len(losses)
    for name, t, role in zip(names["inputs"], values, roles):
        batch.append({"onnx": name, "role": role, "file": _npy(folder, "batch/%s.npy" % name, t),
                      "dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape)})
    params = {"model." + n: n for n, _ in model.named_parameters()}
    buffers = {"model." + n: n for n, _ in model.named_buffers()}
    grads = {n: _npy(folder, "torch/grad/%s.npy" % _file_name(n), g) for n, g in ref["grads"].items()}
    module_values = {n: _npy(folder, "torch/value/%s.npy" % _file_name(n), ref["values"][n])
                     for n in names["values"] if n in ref["values"]}
    classes = {n: type(m).__name__ for n, m in model.named_modules() if n}
    manifest = {
        "format": FORMAT,
        "model": type(model).__name__,
        "model_module": type(model).__module__,
        "torch": torch.__version__,
        "opset": opset,
        "training": model.training,
        "modes": {n: ("train" if m.training else "eval") for n, m in model.named_modules() if n and m.training != model.training},
        "loss": {"function": _describe(loss_fn), "value": float(ref["loss"]), "file": _npy(folder, "torch/loss.npy", ref["loss"]),
                 "terms": [{k: v for k, v in t.items() if k != "q"} for t in losses]},
        "batch": batch,
        "parameters": params,
        "buffers": buffers,
        "gradients": grads,
        "notes": ref["notes"],
        "values": {n: {"file": f, "module": classes.get(n.split("@")[0].split("#")[0], "")} for n, f in module_values.items()},
    }
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


def _describe(loss_fn):
    if isinstance(loss_fn, torch.nn.Module):
        return repr(loss_fn) + ("" if not getattr(loss_fn, "label_smoothing", 0) else " label_smoothing=%g" % loss_fn.label_smoothing)
    return getattr(loss_fn, "__qualname__", type(loss_fn).__name__)
