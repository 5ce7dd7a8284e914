/**
 * What the engine did, as immutable events: TraceEvent, the Recorder that collects them with
 * their source position and groups, the Trace, the graph read back from it (TraceGraph), value
 * ids, stand-ins for values not retained, and the trace's JSON. Nothing here calls back into a
 * UI. It may use tensor and the engine root package (EngineLayersTest).
 */
package io.gradscope.engine.trace;
