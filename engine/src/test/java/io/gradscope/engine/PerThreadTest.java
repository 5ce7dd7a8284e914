package io.gradscope.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A {@link PerThread} value is made once per thread, and a thread never gets another's. */
class PerThreadTest {
    @Test
    void eachThreadKeepsItsOwnValueWhileOthersAsk() throws InterruptedException {
        AtomicInteger made = new AtomicInteger();
        PerThread<int[]> v = new PerThread<>(() -> new int[] {made.incrementAndGet()});
        int[] mine = v.get();
        assertSame(mine, v.get());
        AtomicReference<int[]> theirs = new AtomicReference<>();
        AtomicReference<int[]> theirsAgain = new AtomicReference<>();
        Thread t = new Thread(() -> {
            theirs.set(v.get());
            theirsAgain.set(v.get());
        });
        t.start();
        t.join();
        assertNotSame(mine, theirs.get());
        assertSame(theirs.get(), theirsAgain.get());
        // The other thread asked last; this one still gets its own value back, not a new one.
        assertSame(mine, v.get());
        assertEquals(2, made.get());
    }

    @Test
    void threadsAskingInTurnsNeverSeeEachOthersValue() throws InterruptedException {
        PerThread<Thread[]> owner = new PerThread<>(() -> new Thread[] {Thread.currentThread()});
        AtomicInteger wrong = new AtomicInteger();
        Runnable ask = () -> {
            for (int i = 0; i < 200_000; i++) {
                if (owner.get()[0] != Thread.currentThread()) {
                    wrong.incrementAndGet();
                }
            }
        };
        Thread a = new Thread(ask);
        Thread b = new Thread(ask);
        a.start();
        b.start();
        ask.run();
        a.join();
        b.join();
        assertEquals(0, wrong.get());
    }
}
