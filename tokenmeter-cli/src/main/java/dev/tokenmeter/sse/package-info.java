/**
 * Server-sent events, bytes in and events out, with no dependencies.
 *
 * <p>{@link dev.tokenmeter.sse.SseFramer} implements the WHATWG HTML "server-sent events" parsing
 * algorithm incrementally over bytes (CRLF, LF and lone CR line endings, a CR and LF split across
 * reads, the BOM, comments, multi-line data, {@code event}, {@code id}, {@code retry}); {@link
 * dev.tokenmeter.sse.SseWriter} formats events for servers. One framer is shared by the client and
 * the proxy so every part timestamps events at the same point.
 *
 * <p>Spec:
 * https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 *
 * <p>May use: nothing else in tokenmeter.
 */
package dev.tokenmeter.sse;
