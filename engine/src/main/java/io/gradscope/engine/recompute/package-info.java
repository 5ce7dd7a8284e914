/**
 * Recomputation (activation checkpointing): RematPolicy says what to keep, RematPlanner and its
 * plans (ChainPlans, BudgetPlans) choose the values to recompute for a step described by its
 * StepProfile, and RematPlan is the choice the backward sweep follows. It may use alloc, trace,
 * tensor and the engine root package; it knows no op and no backend (EngineLayersTest).
 */
package io.gradscope.engine.recompute;
