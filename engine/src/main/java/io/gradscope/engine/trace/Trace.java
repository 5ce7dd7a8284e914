package io.gradscope.engine.trace;

import java.util.List;

/** An immutable, ordered list of engine events. */
public record Trace(List<TraceEvent> events) {

    /** The events of one kind, in order. */
    public <T extends TraceEvent> List<T> of(Class<T> kind) {
        return events.stream().filter(kind::isInstance).map(kind::cast).toList();
    }
}
