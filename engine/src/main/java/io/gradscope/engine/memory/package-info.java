/**
 * Memory, two jobs: allocation (BlockCache, the caching policy both backends' allocators share;
 * Allocations, which turns allocations into trace events; HeapLimit) and recomputation
 * (RematPolicy, RematPlanner and its plans, StepProfile, Holds, Retention, the MemoryTimeline
 * read from a trace). It may use trace, tensor and the engine root package; it knows no op and
 * no backend (EngineLayersTest).
 */
package io.gradscope.engine.memory;
