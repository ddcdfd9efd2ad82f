/**
 * An in-process OpenAI-compatible inference server whose token timing is exact and known: the
 * fixture every integration test of the load generator measures against, and the target of
 * {@code tokenmeter demo}.
 *
 * <h2>Use</h2>
 *
 * <pre>{@code
 * Queue<EmissionRecord> truth = new ConcurrentLinkedQueue<>();
 * try (SimServer server = SimServer.start(SimConfig.builder()
 *     .timing(TimingModel.fixed(50_000_000L, 20_000_000L))   // TTFT 50 ms, ITL 20 ms
 *     .groundTruthSink(truth::add)
 *     .build())) {
 *   // send requests to server.baseUrl() + "/v1/chat/completions", header X-Request-Id: <id>
 *   // then match each client timeline to the record with that clientRequestId():
 *   //   server TTFT  = record.actualNanos()[0] - record.arrivalNanos()
 *   //   client TTFT  = firstToken - sent  (≥ server TTFT; the difference is transport + client)
 *   //   token i left = record.actualNanos()[i]; was due at record.intendedNanos()[i]
 * }
 * }</pre>
 *
 * Records use the same clock as the client ({@code System.nanoTime} by default; on Linux shared by
 * all processes). A record reaches the sink before the last bytes of its response are written, so
 * once a client has read a response to its end, its record is there.
 *
 * <h2>Timing</h2>
 *
 * Token {@code i} is due at {@code arrival + shift + ttft + Σ itl(1..i)} (+ a stall, if injected),
 * where arrival is the read that delivered the request's last byte and shift a slow-headers delay.
 * Due times never depend on actual write times. Tokens with distinct due times are written and
 * flushed one per flush; tokens due at the same instant (zero delay) are coalesced, 32 per flush
 * by default, yielding to other connections between flushes. See {@link
 * dev.tokenmeter.simulator.TimingModel} for the seam a batching engine model plugs into.
 *
 * <h2>Other APIs</h2>
 *
 * The same generations, with the same timing and faults, are also answered in Anthropic's
 * Messages, OpenAI's Responses, Gemini's, TGI's and Ollama's native formats, each on its own path
 * ({@link dev.tokenmeter.simulator.ApiRoutes} lists them); {@link
 * dev.tokenmeter.simulator.WireFrames} is the seam, one class per API naming the provider's
 * documentation it follows.
 *
 * <h2>Wire format (vLLM's OpenAI server)</h2>
 *
 * Targets vLLM 0.6 to 0.10 ({@code serving_chat.py}, {@code serving_completion.py}); newer vLLM
 * adds {@code "token_ids":null} to content choices and {@code "prompt_token_ids":null} to the first
 * chunk, which clients must ignore as unknown fields anyway.
 *
 * <ul>
 *   <li>Streams: status 200, {@code content-type: text/event-stream; charset=utf-8}, chunked
 *       transfer encoding; events are {@code data: <json>\n\n} with pydantic's compact JSON.
 *   <li>Chat stream: a role chunk {@code "delta":{"role":"assistant","content":""}} (sent with the
 *       first token, as vLLM does: both in the first engine step's output; {@link
 *       dev.tokenmeter.simulator.SimConfig#roleChunkWithHeaders()} sends it with the headers as
 *       OpenAI does), one chunk per token {@code "delta":{"content":"<tok>"},"logprobs":null,
 *       "finish_reason":null}, the last token's chunk with {@code "finish_reason":"stop"|"length",
 *       "stop_reason":null} (vLLM sends no separate empty-delta chunk), then, with {@code
 *       stream_options.include_usage}, {@code "choices":[],"usage":{"prompt_tokens":P,
 *       "total_tokens":P+C,"completion_tokens":C,"prompt_tokens_details":{"cached_tokens":K}}} (K:
 *       the prompt tokens the prefix cache served, docs/SIM-SERVE.md), then {@code data: [DONE]}.
 *       The usage chunk and
 *       {@code [DONE]} go in a second flush right after the last token.
 *   <li>Natural stop: vLLM counts EOS as a generated token but does not detokenize it, so the last
 *       chunk is {@code "content":""} with {@code "finish_reason":"stop"}, and {@code
 *       completion_tokens} includes it. {@link dev.tokenmeter.simulator.SimConfig#eosChunk()}
 *       false puts "stop" on the last word instead. With {@code ignore_eos} the output is exactly
 *       {@code max_tokens} and ends with "length".
 *   <li>Completions stream: {@code text_completion} objects, {@code "choices":[{"index":0,
 *       "text":"<tok>","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}; no
 *       role chunk.
 *   <li>Non-streamed: one {@code chat.completion} / {@code text_completion} object with usage,
 *       {@code content-type: application/json} and a content length, written when the last token
 *       is due.
 *   <li>Ids: {@code chatcmpl-} / {@code cmpl-} and 32 hex digits (vLLM's {@code uuid4().hex});
 *       {@code created} is epoch seconds from the configured wall clock; {@code X-Request-Id} is
 *       echoed.
 *   <li>Errors: {@code {"error":{"message":…,"type":"BadRequestError","param":null,"code":400}}}
 *       for bad JSON, missing fields, {@code n ≠ 1}, {@code max_tokens < 1}, {@code min_tokens >
 *       max_tokens}, prompt + {@code max_tokens} over the context length, {@code stream_options}
 *       without {@code stream}; {@code NotFoundError} 404 for an unknown model; FastAPI's {@code
 *       {"detail":"Not Found"}} 404 for unknown paths and {@code {"detail":"Method Not Allowed"}}
 *       405. (vLLM before 0.10 sent the flat {@code {"object":"error","message":…}}.)
 *   <li>{@code GET /v1/models}: one vLLM model card; {@code GET /health}: 200, empty body.
 * </ul>
 *
 * <h2>Faults ({@link dev.tokenmeter.simulator.Faults}, seeded, at most one per request)</h2>
 *
 * <ul>
 *   <li>{@code HTTP_429 / HTTP_500 / HTTP_503}: at arrival, that status with {@code
 *       {"error":{"message":"Simulated HTTP 429 (tokenmeter fault injection)",
 *       "type":"RateLimitError"|"InternalServerError"|"ServiceUnavailableError","param":null,
 *       "code":…}}}; the connection stays open.
 *   <li>{@code SLOW_HEADERS}: the status line, and the whole token schedule, D later.
 *   <li>{@code DISCONNECT}: when token K is due, after K tokens, the server closes the connection
 *       (FIN) inside the chunked body: no finish reason, no {@code [DONE]}, no terminating chunk.
 *   <li>{@code STALL}: token K and all later tokens are due D later.
 *   <li>{@code MALFORMED_CHUNK}: just before token K, an event whose data is a token chunk cut
 *       inside its content string (invalid JSON); the stream then goes on normally.
 *   <li>{@code ERROR_EVENT}: when token K is due, {@code data: {"error": {"message": "Simulated
 *       engine failure (tokenmeter fault injection)", "type": "InternalServerError", "param":
 *       null, "code": 500}}} (Python {@code json.dumps} spacing, as vLLM's {@code
 *       create_streaming_error_response}), then {@code data: [DONE]} and the end of the body, as
 *       vLLM's stream generators do on an exception.
 * </ul>
 *
 * K is clamped to {@code outputTokens − 1}, so a mid-stream fault always acts before the final
 * token. Mid-stream faults are skipped for non-streamed requests.
 *
 * <p>May use: core.time, simulator.engine.., sse..
 */
package dev.tokenmeter.simulator;
