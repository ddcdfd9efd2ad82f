/**
 * The endpoints a run sends requests through, over Netty. {@link
 * dev.tokenmeter.client.ApiEndpoint} implements the core's {@code Endpoint} port for every
 * {@link dev.tokenmeter.client.Api} (OpenAI chat, completions and Responses, Anthropic Messages,
 * Gemini, TGI, Ollama chat and generate; the class name dates from when it spoke OpenAI's only),
 * configured by an {@link dev.tokenmeter.client.EndpointConfig} and its {@link
 * dev.tokenmeter.client.TlsSettings}; {@link dev.tokenmeter.client.SpreadEndpoint} spreads
 * connections over several event loops. Each socket read is timestamped once, before TLS or HTTP
 * decoding; event-stream bodies go through {@code sse}'s framer, newline-delimited JSON through
 * {@link dev.tokenmeter.client.LineFramer}, and each API's {@link
 * dev.tokenmeter.client.StreamDecoder} turns payloads into the core's {@code StreamItem}s ({@link
 * dev.tokenmeter.client.ChunkParser} for OpenAI's, with a byte-level fast path in front). {@link
 * dev.tokenmeter.client.ResponseReader} is the one reader of a response (body modes, end and
 * outcome rules) for bench's exchanges and for the proxy, which meters what it forwards with it.
 * Netty's connection handling is here once for both as well: {@link
 * dev.tokenmeter.client.ReadStamp} stamps each read at the head of the pipeline, {@link
 * dev.tokenmeter.client.KeepAlivePool} pools keep-alive connections (reused only after a clean
 * response end), {@link dev.tokenmeter.client.StaleResend} says when a request written on a stale
 * pooled connection is sent again.
 *
 * <p>May use: core.., sse..
 */
package dev.tokenmeter.client;
