package io.gradscope.app.draw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.gradscope.app.layout.GraphLayout;
import io.gradscope.app.viewmodel.Decorator;
import io.gradscope.app.viewmodel.GraphStates;
import io.gradscope.app.viewmodel.Sweep;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.trace.TraceGraph;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.value.ObservableValue;
import org.junit.jupiter.api.Test;

/** Decorators paint over the sweep's looks in the order added; the selection's outline stays on top. */
class DecoratorTest {
    record Fixed(Map<String, Decorator.Paint> paints, TraceGraph.Edge litEdge, String color) implements Decorator {
        @Override
        public Paint node(String key) {
            return paints.get(key);
        }

        @Override
        public String edge(TraceGraph.Edge e) {
            return e.equals(litEdge) ? color : null;
        }

        @Override
        public ObservableValue<?> revision() {
            return new SimpleIntegerProperty();
        }
    }

    @Test
    void laterDecoratorsWinAndTheSelectionOutlineStaysOnTop() {
        ProgramRun run = Program.parse("d.grad", "x = input(2, 3)\nw = param(3, 2)\nloss = sum(tanh(x @ w))\n")
                .run(new RunOptions(DType.FLOAT64, 0, Map.of()));
        TraceGraph g = TraceGraph.of(run.trace());
        Sweep sweep = new Sweep(run, g);
        GraphStates states = new GraphStates(sweep, Sweep.Mode.BACKWARD, Set.of(), -1);
        GraphScene scene = new GraphScene(g, GraphLayout.layout(g, Set.of()));
        String a = scene.key(0);
        String b = scene.key(1);
        TraceGraph.Edge e = g.edges().get(0);
        scene.setDecorators(List.of(
                new Fixed(Map.of(a, Decorator.Paint.fill("#111111", "#ffffff"), b, Decorator.Paint.fill("#222222", null)), null, null),
                new Fixed(Map.of(b, Decorator.Paint.outline("#333333", 4)), e, "#444444")));
        scene.restyle(states, states.all());
        assertEquals("#111111", scene.look(a).fill());
        assertEquals("#ffffff", scene.look(a).text());
        assertEquals("#222222", scene.look(b).fill(), "the second decorator keeps the first one's fill");
        assertEquals("#333333", scene.look(b).stroke());
        assertEquals(4.0, scene.look(b).strokeWidth());
        int lit = -1;
        for (int i = 0; i < scene.edges.length; i++) {
            if (scene.edges[i].equals(e)) {
                lit = i;
            }
        }
        assertEquals("#444444", scene.edgeLook(lit).color());
        assertNotEquals(Looks.EDGE.color(), scene.edgeLook(lit).color());
        int vb = -1;
        for (TraceGraph.Vertex v : g.vertices()) {
            if (b.equals(states.keyOf(v.index()))) {
                vb = v.index();
            }
        }
        scene.restyle(states, states.update(-1, vb));
        assertEquals(Looks.SELECTED_STROKE, scene.look(b).stroke(), "the selection is drawn over every decoration");
        assertEquals("#222222", scene.look(b).fill());
    }
}
