/**
 * The load generator, executing one stage: {@link dev.tokenmeter.core.loadgen.StageRunner} releases requests as the
 * stage's load model says, classifies each by its scheduled time (warm-up, measured, cool-down),
 * enforces the {@link dev.tokenmeter.core.loadgen.Timeouts}, watches its loop's lag and records
 * into a {@code core.metrics} stage recorder. It owns the ports it drives and knows nothing of HTTP
 * or JSON: {@link dev.tokenmeter.core.loadgen.Endpoint}, one per API (implemented over the network
 * in {@code client}, in virtual time in {@code simulator.virtual}); the single-threaded {@link
 * dev.tokenmeter.core.loadgen.Loop} everything runs on; {@link
 * dev.tokenmeter.core.loadgen.RequestSource}, what each request sends (a {@link
 * dev.tokenmeter.core.loadgen.SessionSource} when requests are the turns of conversations, each a
 * {@link dev.tokenmeter.core.loadgen.Conversation} that builds its next turn from the answers, or
 * a {@link dev.tokenmeter.core.loadgen.TypingConversation} whose burst of keystroke requests the
 * runner sends on the user's clock, cancelling each one the next supersedes); and
 * {@link dev.tokenmeter.core.loadgen.RequestSink}, where each finished request goes.
 *
 * <p>The runner keeps the stage's lifecycle; package-private parts own the rest: {@code
 * StageWindow} (window boundaries, phases, stop conditions, the {@code --max-requests} cap), {@code
 * Flights} (the requests in flight, each a {@code Flight}, and their deadlines), {@code OpenLoop}
 * (arrivals at absolute offsets and the {@code --max-concurrency} queue), {@code Users} (what
 * follows each request: think time, sessions, typing bursts) and {@code RequestRecording} (each
 * request's metrics, its answer counted on the loop or off it).
 *
 * <p>May use: core.time, core.load, core.request, core.metrics
 */
package dev.tokenmeter.core.loadgen;
