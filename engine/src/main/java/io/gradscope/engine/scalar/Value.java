package io.gradscope.engine.scalar;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Set;

/**
 * A scalar that remembers how it was computed, in the manner of micrograd: each operation makes a
 * new {@code Value} whose backward step adds its local derivative times the upstream gradient to
 * its operands. {@link #backward()} runs the steps in reverse topological order.
 *
 * <pre>{@code
 * Value a = new Value(2, "a"), b = new Value(-3, "b");
 * Value y = a.mul(b).add(a.tanh());
 * y.backward();
 * a.grad();   // b + (1 − tanh²a)
 * }</pre>
 */
public final class Value {
    private final double data;
    private double grad;
    private final String label;
    private final String op;
    private final List<Value> operands;
    private Runnable backwardStep = () -> { };

    /** A leaf. */
    public Value(double data, String label) {
        this(data, label, "", List.of());
    }

    private Value(double data, String label, String op, List<Value> operands) {
        this.data = data;
        this.label = label;
        this.op = op;
        this.operands = operands;
    }

    public double data() {
        return data;
    }

    /** ∂(the value {@link #backward()} was called on)/∂(this), after that call. */
    public double grad() {
        return grad;
    }

    /** The name given to a leaf, or empty. */
    public String label() {
        return label;
    }

    /** The operation that made this value ("" for a leaf, else "+", "*", "exp", ...). */
    public String op() {
        return op;
    }

    public List<Value> operands() {
        return operands;
    }

    private static Value of(double data, String op, Value... operands) {
        return new Value(data, "", op, List.of(operands));
    }

    public Value add(Value o) {
        Value out = of(data + o.data, "+", this, o);
        out.backwardStep = () -> {
            grad += out.grad;
            o.grad += out.grad;
        };
        return out;
    }

    public Value add(double c) {
        return add(new Value(c, ""));
    }

    public Value mul(Value o) {
        Value out = of(data * o.data, "*", this, o);
        out.backwardStep = () -> {
            grad += o.data * out.grad;
            o.grad += data * out.grad;
        };
        return out;
    }

    public Value mul(double c) {
        return mul(new Value(c, ""));
    }

    public Value neg() {
        return mul(-1);
    }

    public Value sub(Value o) {
        return add(o.neg());
    }

    public Value div(Value o) {
        return mul(o.pow(-1));
    }

    public Value pow(double c) {
        Value out = of(Math.pow(data, c), "**" + (c == Math.rint(c) ? Long.toString((long) c) : Double.toString(c)), this);
        out.backwardStep = () -> grad += c * Math.pow(data, c - 1) * out.grad;
        return out;
    }

    public Value exp() {
        Value out = of(Math.exp(data), "exp", this);
        out.backwardStep = () -> grad += out.data * out.grad;
        return out;
    }

    public Value log() {
        Value out = of(Math.log(data), "log", this);
        out.backwardStep = () -> grad += out.grad / data;
        return out;
    }

    public Value tanh() {
        Value out = of(Math.tanh(data), "tanh", this);
        out.backwardStep = () -> grad += (1 - out.data * out.data) * out.grad;
        return out;
    }

    // ReLU's subgradient at 0 is 0, as in the tensor engine and PyTorch.
    public Value relu() {
        Value out = of(Math.max(data, 0), "relu", this);
        out.backwardStep = () -> grad += (data > 0 ? 1 : 0) * out.grad;
        return out;
    }

    /**
     * A function of this value as one step called {@code op}, given its value and its derivative
     * here (an op's own rule, where no chain of the steps above spells it out).
     */
    public Value apply(String op, double value, double derivative) {
        Value out = of(value, op, this);
        out.backwardStep = () -> grad += derivative * out.grad;
        return out;
    }

    /** A function of this value and {@code o} as one step, given its value and both partial derivatives here. */
    public Value apply(String op, double value, double dThis, Value o, double dOther) {
        Value out = of(value, op, this, o);
        out.backwardStep = () -> {
            grad += dThis * out.grad;
            o.grad += dOther * out.grad;
        };
        return out;
    }

    /** Every value this one depends on (itself included), operands before users. */
    public List<Value> topologicalOrder() {
        List<Value> order = new ArrayList<>();
        Set<Value> seen = Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        // Iterative depth-first search: long chains must not overflow the stack.
        Deque<Object[]> stack = new ArrayDeque<>();
        stack.push(new Object[] {this, 0});
        seen.add(this);
        while (!stack.isEmpty()) {
            Object[] top = stack.peek();
            Value v = (Value) top[0];
            int next = (Integer) top[1];
            if (next < v.operands.size()) {
                top[1] = next + 1;
                Value c = v.operands.get(next);
                if (seen.add(c)) {
                    stack.push(new Object[] {c, 0});
                }
            } else {
                stack.pop();
                order.add(v);
            }
        }
        return order;
    }

    /** Sets every gradient below this value (seed 1 here) by running the backward steps in reverse order. */
    public void backward() {
        List<Value> order = topologicalOrder();
        for (Value v : order) {
            v.grad = 0;
        }
        grad = 1;
        for (int i = order.size() - 1; i >= 0; i--) {
            order.get(i).backwardStep.run();
        }
    }

    @Override
    public String toString() {
        return "Value(" + (label.isEmpty() ? op : label) + " = " + data + ", grad " + grad + ")";
    }
}
