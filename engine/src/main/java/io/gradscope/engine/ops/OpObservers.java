package io.gradscope.engine.ops;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The ordered list of {@link OpObserver}s that {@link Ops} calls after every op.
 *
 * <p>Note [Op observers]: the op table sits below the packages that react to an op (autograd
 * records a node, forward mode carries a tangent), so they install an observer here as their
 * classes start, instead of {@code Ops} naming them; that is what keeps {@code ops} from importing
 * {@code forward}. Installing on class start is enough: a tensor can only need a gradient once the
 * autograd node class has started (a leaf's node is made as it is marked), and a tangent can only be
 * carried once a forward-mode level has been opened. Observers run in the order of their place
 * ({@link OpObserver#AUTOGRAD}, {@link OpObserver#TRACE}, {@link OpObserver#FORWARD_MODE}), whatever
 * order they were installed in; those placed below zero run before the op's allocations are
 * announced, the others after. The lists are plain arrays replaced on install (rare), so an op's
 * call is a loop over an array that allocates nothing.
 */
public final class OpObservers {
    private record Placed(int place, OpObserver observer) {
    }

    private static final List<Placed> ALL = new ArrayList<>();
    /** Placed below zero: before the op's allocations are announced. */
    private static volatile OpObserver[] early = new OpObserver[0];
    /** Placed at zero or above: after. */
    private static volatile OpObserver[] late = new OpObserver[0];
    /** Those that override {@link OpObserver#differentiating()} (the others always answer no). */
    private static volatile OpObserver[] differentiators = new OpObserver[0];

    static {
        install(OpObserver.TRACE, new ForwardEvents());
    }

    private OpObservers() {
    }

    /** Adds {@code observer} at {@code place} (see {@link OpObserver}'s constants); it stays for the process. */
    public static synchronized void install(int place, OpObserver observer) {
        ALL.add(new Placed(place, observer));
        ALL.sort(Comparator.comparingInt(Placed::place));
        early = ALL.stream().filter(p -> p.place() < 0).map(Placed::observer).toArray(OpObserver[]::new);
        late = ALL.stream().filter(p -> p.place() >= 0).map(Placed::observer).toArray(OpObserver[]::new);
        differentiators = ALL.stream().map(Placed::observer).filter(OpObservers::answersDifferentiating).toArray(OpObserver[]::new);
    }

    /** Whether {@code o}'s class declares its own {@link OpObserver#differentiating()}. */
    private static boolean answersDifferentiating(OpObserver o) {
        try {
            return o.getClass().getMethod("differentiating").getDeclaringClass() != OpObserver.class;
        } catch (NoSuchMethodException e) {
            throw new AssertionError(e);
        }
    }

    /** The observers that run before an op's allocations are announced, in order. */
    static OpObserver[] early() {
        return early;
    }

    /** The observers that run after, in order. */
    static OpObserver[] late() {
        return late;
    }

    /** Whether any observer needs VJPs written in differentiable ops now ({@link OpObserver#differentiating()}). */
    public static boolean differentiating() {
        for (OpObserver o : differentiators) {
            if (o.differentiating()) {
                return true;
            }
        }
        return false;
    }

    /** For tests: the installed observers' places, in order. */
    static int[] places() {
        synchronized (OpObservers.class) {
            return ALL.stream().mapToInt(Placed::place).toArray();
        }
    }
}
