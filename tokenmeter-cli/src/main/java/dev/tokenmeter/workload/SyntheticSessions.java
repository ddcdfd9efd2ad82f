package dev.tokenmeter.workload;

import dev.tokenmeter.core.loadgen.Conversation;
import dev.tokenmeter.core.loadgen.SessionSource;
import dev.tokenmeter.core.request.Message;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * Synthetic conversations ({@code bench --turns}): session {@code n} plans a number of turns drawn
 * from {@code turns}; turn 1 sends the system prompt (the {@code --shared-prefix-tokens} prefix, when
 * given) and a user message of a length drawn from {@code input}; turn k+1 sends the whole history
 * (every earlier user message and the server's answers as received, as assistant messages) plus a
 * new user message. A session ends when its turns are done, or before its next prompt would exceed
 * {@code maxContext} tokens.
 *
 * <pre>{@code
 * var s = new SyntheticSessions(new Settings(new LengthSpec.Fixed(4), input, output,
 *     ThinkTime.NONE, 0, 42, PromptSynthesizer.standard(), 0, 256));
 * Conversation c = s.open(0);
 * RequestSpec first = c.next(0);
 * }</pre>
 *
 * <p>Thread-safe source; each {@link Conversation} is confined to the engine's loop.
 */
/* design notes
 *
 * Cheap on the loop (issue 36, "Performance"). The engine asks for every turn on its event loop,
 * where synthesizing a 512-token message costs ~18 µs and counting a 30k-token history with a
 * tokenizer ~ms. So user messages come from a pool built up front, in parallel, off the loop (each
 * with its count), and a session keeps a running count: next prompt = this prompt + the answer's
 * tokens + the new message's, where the answer's tokens are the server's usage.completion_tokens
 * (less reasoning tokens, which are not appended) or, without usage, the heuristic estimate of the
 * answer text (linear in the answer only, about 1 µs per KB). Nothing re-reads the history. A
 * session's first user message is led by its session number, so no two sessions share more than the
 * system prompt and the prefix cache sees real conversations, not one repeated prompt. The counts
 * are the client's: message contents only (a chat template adds a few tokens a message, which the
 * server's usage.prompt_tokens includes), so they are marked estimates.
 */
public final class SyntheticSessions implements SessionSource {
  static final long SESSION_STREAM = 16;
  static final long POOL_STREAM = 17;

  /**
   * What the sessions are made of.
   *
   * @param turns turns per session
   * @param input tokens of each new user message
   * @param output {@code max_tokens} per turn, null to send none
   * @param think pause between a session's turns
   * @param maxContext a session ends before a prompt would exceed this many tokens; 0 for no limit
   * @param seed seeds every draw
   * @param synthesizer builds and sizes the messages
   * @param systemPromptTokens tokens of the system prompt every session starts with, 0 for none
   * @param poolSize user messages built up front, drawn from by every turn
   */
  public record Settings(
      LengthSpec turns,
      LengthSpec input,
      LengthSpec output,
      ThinkTime think,
      int maxContext,
      long seed,
      PromptSynthesizer synthesizer,
      int systemPromptTokens,
      int poolSize) {
    public Settings {
      Objects.requireNonNull(turns, "turns");
      Objects.requireNonNull(input, "input");
      Objects.requireNonNull(think, "think");
      Objects.requireNonNull(synthesizer, "synthesizer");
      if (maxContext < 0 || systemPromptTokens < 0 || poolSize < 1) {
        throw new IllegalArgumentException("maxContext and systemPromptTokens must be >= 0, poolSize >= 1");
      }
    }
  }

  private final Settings s;
  private final Message system;
  private final int systemTokens;
  private final String[] pool;
  private final int[] poolTokens;

  /** Builds the message pool now, in parallel (seconds for large pools of long messages). */
  public SyntheticSessions(Settings settings) {
    this.s = settings;
    if (settings.systemPromptTokens() > 0) {
      PromptSynthesizer.Synthesized p = settings.synthesizer()
          .text(settings.systemPromptTokens(), Draws.forItem(settings.seed(), SyntheticWorkload.PREFIX_STREAM, 0));
      system = new Message("system", p.text());
      systemTokens = p.tokens();
    } else {
      system = null;
      systemTokens = 0;
    }
    pool = new String[settings.poolSize()];
    poolTokens = new int[settings.poolSize()];
    IntStream.range(0, pool.length).parallel().forEach(i -> {
      SplittableRandom r = Draws.forItem(settings.seed(), POOL_STREAM, i);
      PromptSynthesizer.Synthesized m = settings.synthesizer().text(settings.input().sample(r), r);
      pool[i] = m.text();
      poolTokens[i] = m.tokens();
    });
  }

  @Override
  public Conversation open(long session) {
    return new Synthetic(session, Draws.forItem(s.seed(), SESSION_STREAM, session));
  }

  /** One line for reports. */
  public String describe() {
    return "sessions of " + s.turns().describe() + " turns, user messages " + s.input().describe()
        + ", think time " + s.think().describe()
        + (s.maxContext() > 0 ? ", context at most " + s.maxContext() + " tokens" : "");
  }

  private final class Synthetic extends GrowingConversation {
    private final long session;
    private final SplittableRandom random;

    Synthetic(long session, SplittableRandom random) {
      super(session, s.turns().sample(random), s.maxContext(), system, systemTokens);
      this.session = session;
      this.random = random;
    }

    @Override
    Next draw(int turn) {
      int i = random.nextInt(pool.length);
      OptionalInt max = s.output() == null ? OptionalInt.empty() : OptionalInt.of(s.output().sample(random));
      if (turn > 1) {
        return new Next(pool[i], poolTokens[i], max);
      }
      // Led by the session's number: sessions share the system prompt only.
      String lead = "Conversation " + session + ".";
      return new Next(lead + " " + pool[i], poolTokens[i] + s.synthesizer().estimator().count(lead), max);
    }

    @Override
    public long thinkNanos() {
      return s.think().sampleNanos(random);
    }
  }
}
