/**
 * The inference engine model, in virtual time (nanoseconds, no clock). {@link
 * dev.tokenmeter.simulator.engine.BatchEngine} is an iteration-level continuous-batching scheduler
 * after vLLM V1 (chunked prefill, KV-cache blocks, automatic prefix caching), each iteration timed
 * by the {@link dev.tokenmeter.simulator.engine.Roofline} cost model. The engine's package-private parts are
 * Scheduler (batch composition, admission, preemption), SequenceBlocks (each sequence's KV blocks
 * and the prefix cache, over KvBlockPool) and Handoffs (a disaggregated pool's transfers); the
 * cost model's is MemoryPlan (weights and KV capacity per GPU). A deployment is an {@link
 * dev.tokenmeter.simulator.engine.EngineConfig}: a {@link
 * dev.tokenmeter.simulator.engine.ModelSpec} on a {@link dev.tokenmeter.simulator.engine.GpuSpec},
 * served by an {@link dev.tokenmeter.simulator.engine.EngineProfile}, tensor-parallel or spread by
 * {@link dev.tokenmeter.simulator.engine.Parallelism} (data-parallel attention, expert parallelism
 * and its all-to-all). {@link dev.tokenmeter.simulator.engine.DisaggregatedEngine} runs two of
 * those engines as disaggregated prefill and decode pools, the KV cache moving between them. {@link
 * dev.tokenmeter.simulator.engine.Presets} holds the built-in models and accelerators, {@link
 * dev.tokenmeter.simulator.engine.Calibration} the constants fitted to published measurements and
 * {@link dev.tokenmeter.simulator.engine.HeldOutAccuracy} how far a prediction can be trusted
 * (docs/SIMULATOR.md). Plain Java with no I/O, using only the JDK (checked by ArchitectureTest), so
 * the simulator's server and the capacity planner run the same model.
 *
 * <p>May use: nothing else in tokenmeter.
 */
package dev.tokenmeter.simulator.engine;
