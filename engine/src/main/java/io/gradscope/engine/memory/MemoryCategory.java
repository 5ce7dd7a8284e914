package io.gradscope.engine.memory;

/** What a block of memory holds, for the memory timeline. */
public enum MemoryCategory {
    PARAMETER, ACTIVATION, GRADIENT, TEMPORARY
}
