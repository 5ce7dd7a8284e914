/**
 * Allocation, beside the backends: BlockCache (the caching policy both backends' allocators share),
 * Allocations (which turns allocations into trace events), HeapLimit, RefCounts (who still needs each
 * storage of a training step, freeing it when nobody does), Retention (what a debugging run keeps
 * for the inspector) and the MemoryTimeline read back from a trace. It may use trace, tensor and the
 * engine root package; it knows no op and no backend (EngineLayersTest).
 */
package io.gradscope.engine.alloc;
