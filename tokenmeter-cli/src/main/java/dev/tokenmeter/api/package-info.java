/**
 * tokenmeter's public Java API: the one package other projects compile against, documented and
 * kept stable (the rest of the tool is internal and may change). Three uses:
 *
 * <ul>
 *   <li>{@link dev.tokenmeter.api.Simulator}: an LLM server for tests, in-process, speaking the
 *       OpenAI, Anthropic, Gemini, Ollama and TGI wire formats with real timing and token
 *       accounting; {@link dev.tokenmeter.api.Answer} scripts its answers (text, JSON, tool calls,
 *       refusals, errors such as a 429 with {@code Retry-After}); {@link dev.tokenmeter.api.ReceivedRequest}
 *       is what it received.
 *   <li>{@link dev.tokenmeter.api.LoadTest}: a short {@code tokenmeter bench} run from Java, whose
 *       {@link dev.tokenmeter.api.LoadResult} is the run's summary.json.
 *   <li>The JUnit 5 extension ({@code dev.tokenmeter:tokenmeter-junit5}) builds on both.
 * </ul>
 *
 * <pre>{@code
 * try (Simulator sim = Simulator.builder().api(Api.OPENAI).start()) {
 *   sim.answer(Answer.text("Hello!"));
 *   // point the application's OpenAI client at sim.baseUrl(), call it, then:
 *   assertEquals(1, sim.received().size());
 * }
 * }</pre>
 *
 * <p>Nothing else in the tool uses this package; it uses only what it exposes (see docs/ARCHITECTURE.md).
 *
 * <p>May use: core.time, simulator, simulator.engine..
 */
package dev.tokenmeter.api;
