/**
 * One request, from what it sends to how it ended. {@link dev.tokenmeter.core.request.RequestSpec}
 * is what it sends (a {@link dev.tokenmeter.core.request.Prompt} of text or of chat {@link
 * dev.tokenmeter.core.request.Message}s, and the output length asked for); {@link
 * dev.tokenmeter.core.request.RequestTimeline} is what happened and when (the timestamps of the
 * measurement model, each text chunk's arrival, usage, the outcome), filled on the engine's loop
 * from endpoint callbacks. The sealed {@link dev.tokenmeter.core.request.StreamItem} is what a
 * response stream said, alike for every API; the sealed {@link dev.tokenmeter.core.request.Outcome}
 * is how the request ended, a completion or a failure with its {@link
 * dev.tokenmeter.core.request.ErrorClass}. {@link dev.tokenmeter.core.request.ChunkLog} and {@link
 * dev.tokenmeter.core.request.AnswerText} keep an in-flight request's chunks and text compactly;
 * small enums classify the rest (phase, finish reason, timeout, source of the token count).
 *
 * <p>Times are nanoseconds from the run's ticker; nothing here reads a clock.
 *
 * <p>May use: nothing else in tokenmeter.
 */
package dev.tokenmeter.core.request;
