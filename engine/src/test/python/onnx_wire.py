"""A minimal reader of the ONNX protobuf wire format (no `onnx` package needed): the initializers,
nodes, inputs and outputs of a ModelProto, enough to check what torch.onnx.export wrote."""
import struct


def _varint(b, i):
    shift = result = 0
    while True:
        c = b[i]
        i += 1
        result |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return result, i


def fields(b):
    """(field number, wire type, value) for each field of a message; value is an int or bytes."""
    i = 0
    out = []
    while i < len(b):
        key, i = _varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(b, i)
        elif wt == 1:
            v = b[i:i + 8]
            i += 8
        elif wt == 2:
            n, i = _varint(b, i)
            v = b[i:i + n]
            i += n
        elif wt == 5:
            v = b[i:i + 4]
            i += 4
        else:
            raise ValueError("wire type %d" % wt)
        out.append((num, wt, v))
    return out


def _ints(entries):
    vals = []
    for wt, v in entries:
        if wt == 0:
            vals.append(v)
        else:  # packed
            j = 0
            while j < len(v):
                x, j = _varint(v, j)
                vals.append(x)
    return [x - (1 << 64) if x >= 1 << 63 else x for x in vals]


def tensor(b):
    f = fields(b)
    dims = _ints([(wt, v) for n, wt, v in f if n == 1])
    dtype = next((v for n, wt, v in f if n == 2), 0)
    name = next((v.decode() for n, wt, v in f if n == 8), "")
    raw = next((v for n, wt, v in f if n == 9), None)
    return {"name": name, "dims": dims, "dtype": dtype, "raw": raw}


def attribute(b):
    f = fields(b)
    a = {"name": next(v.decode() for n, wt, v in f if n == 1)}
    for n, wt, v in f:
        if n == 2:
            a["f"] = struct.unpack("<f", v)[0]
        elif n == 3:
            a["i"] = _ints([(wt, v)])[0]
        elif n == 4:
            a["s"] = v.decode(errors="replace")
        elif n == 5:
            a["t"] = tensor(v)
        elif n == 8:
            a.setdefault("ints", []).extend(_ints([(wt, v)]))
        elif n == 7:
            a.setdefault("floats", []).extend(struct.unpack("<%df" % (len(v) // 4), v) if wt == 2 else [struct.unpack("<f", v)[0]])
    return a


def node(b):
    f = fields(b)
    return {"inputs": [v.decode() for n, wt, v in f if n == 1], "outputs": [v.decode() for n, wt, v in f if n == 2],
            "name": next((v.decode() for n, wt, v in f if n == 3), ""), "op": next(v.decode() for n, wt, v in f if n == 4),
            "attrs": [attribute(v) for n, wt, v in f if n == 5]}


def model(path):
    b = open(path, "rb").read()
    f = fields(b)
    opset = [dict((n, v) for n, wt, v in fields(v)) for n, wt, v in f if n == 8]
    g = fields(next(v for n, wt, v in f if n == 7))
    return {"opset": [o.get(2) for o in opset], "nodes": [node(v) for n, wt, v in g if n == 1],
            "initializers": [tensor(v) for n, wt, v in g if n == 5],
            "inputs": [fields(v)[0][2].decode() for n, wt, v in g if n == 11],
            "outputs": [fields(v)[0][2].decode() for n, wt, v in g if n == 12]}


def dump(path):
    m = model(path)
    print(path, "opset", m["opset"], "inputs", m["inputs"], "outputs", m["outputs"])
    for t in m["initializers"]:
        print("  init", t["name"], t["dims"], t["dtype"])
    for nd in m["nodes"]:
        attrs = {a["name"]: a.get("i", a.get("ints", a.get("f", a.get("s", "t")))) for a in nd["attrs"]}
        print("  %-14s %-40s %s -> %s %s" % (nd["op"], nd["name"], nd["inputs"], nd["outputs"], attrs))
