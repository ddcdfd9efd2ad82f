/**
 * The capacity planner behind {@code tokenmeter simulate}: {@link
 * dev.tokenmeter.simulator.virtual.Simulation} runs bench's own {@link
 * dev.tokenmeter.core.loadgen.StageRunner}, unchanged, against an {@link
 * dev.tokenmeter.simulator.virtual.EngineEndpoint} (the {@code simulator.engine} model answering
 * requests directly: no sockets, no JSON) on a {@link dev.tokenmeter.simulator.virtual.VirtualLoop}
 * (a discrete-event scheduler that is also the clock). Minutes of simulated load take only the
 * time their events take to process, and produce the same {@code StageResult}s a real run records.
 *
 * <p>May use: core.., simulator, simulator.engine..
 */
package dev.tokenmeter.simulator.virtual;
