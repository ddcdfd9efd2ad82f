/**
 * JUnit 5 support for testing LLM applications against tokenmeter's simulator: {@link
 * dev.tokenmeter.junit5.TokenmeterSimulator} starts one per class or per test and points the
 * usual base-URL properties at it; {@link dev.tokenmeter.junit5.LoadTests} fails a test on an SLO.
 *
 * <pre>{@code
 * @TokenmeterSimulator
 * class MyTest {
 *   @Test
 *   void streams(Simulator sim) {
 *     sim.answer(Answer.text("Hello!"));
 *     // call the application, whose OpenAI base URL is sim.baseUrl()
 *   }
 * }
 * }</pre>
 */
package dev.tokenmeter.junit5;
