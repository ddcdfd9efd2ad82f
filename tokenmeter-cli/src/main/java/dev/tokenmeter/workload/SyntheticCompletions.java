package dev.tokenmeter.workload;

import dev.tokenmeter.core.loadgen.Conversation;
import dev.tokenmeter.core.loadgen.SessionSource;
import dev.tokenmeter.core.loadgen.TypingConversation;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.SessionTurn;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * Synthetic code completion ({@code --profile completion}): each session is one burst of a user
 * typing. Session {@code n} draws a burst length from {@code burst} and a document from a pool
 * built up front: the text before the cursor and after it, {@code input} tokens in all (3/4
 * before, 1/4 after). Its requests are fill-in-the-middle prompts ({@link Prompt.Infill}), one a
 * keystroke: request k's prefix is the document's plus the k characters typed so far, so
 * consecutive requests share all but their last few tokens (what a prefix cache sees in an
 * editor). Requests follow each other a {@code keystroke} gap apart on the user's clock; the
 * engine cancels one still in flight when the next goes out ({@link TypingConversation}).
 *
 * <pre>{@code
 * var s = new SyntheticCompletions(new Settings(new LengthSpec.Uniform(1024, 2048),
 *     new LengthSpec.Uniform(16, 64), new LengthSpec.Uniform(2, 6), new ThinkTime.Fixed(150_000_000L),
 *     new ThinkTime.Fixed(2_000_000_000L), 0, 42, PromptSynthesizer.standard(), 256));
 * TypingConversation burst = (TypingConversation) s.open(0);
 * }</pre>
 *
 * <p>Thread-safe source; each conversation is confined to the engine's loop.
 */
/* design notes
 *
 * Defaults (cli): bursts of uniform:2,6 requests 150 ms apart, 2 s of thought between bursts,
 * prompts of uniform:1024,2048 tokens and answers of uniform:16,64. Editors debounce completion
 * requests by about that much: VS Code's inline suggestions wait for a pause in typing, and GitHub
 * Copilot's client debounces in the 75-150 ms range (community measurements; no official figure),
 * so a burst is a user typing a few characters with short pauses, each pause firing a request
 * that the next makes stale. The split of the prompt (3/4 before the cursor) follows editors that
 * send more context before the cursor than after it; both parts are counted.
 */
public final class SyntheticCompletions implements SessionSource {
  static final long SESSION_STREAM = 26;
  static final long POOL_STREAM = 27;
  /** What the user types, one character per keystroke request (cycled). */
  static final String TYPED = "return value;";

  /**
   * What the bursts are made of.
   *
   * @param input prompt tokens (before and after the cursor) of each burst's document
   * @param output {@code max_tokens} per request, null to send none
   * @param burst requests per burst (keystrokes whose pause fires a request)
   * @param keystroke gap between a burst's requests
   * @param pause a closed-loop user's pause between bursts
   * @param cancelAfterNanos cancel a request not done after this long, 0 for no such rule
   * @param seed seeds every draw
   * @param synthesizer builds and sizes the text
   * @param poolSize documents built up front
   */
  public record Settings(
      LengthSpec input,
      LengthSpec output,
      LengthSpec burst,
      ThinkTime keystroke,
      ThinkTime pause,
      long cancelAfterNanos,
      long seed,
      PromptSynthesizer synthesizer,
      int poolSize) {
    public Settings {
      Objects.requireNonNull(input, "input");
      Objects.requireNonNull(burst, "burst");
      Objects.requireNonNull(keystroke, "keystroke");
      Objects.requireNonNull(pause, "pause");
      Objects.requireNonNull(synthesizer, "synthesizer");
      if (cancelAfterNanos < 0 || poolSize < 1) {
        throw new IllegalArgumentException("cancelAfterNanos must be >= 0, poolSize >= 1");
      }
    }
  }

  private final Settings s;
  private final String[] prefixes;
  private final String[] suffixes;
  private final int[] tokens;

  /** Builds the document pool now, in parallel. */
  public SyntheticCompletions(Settings settings) {
    this.s = settings;
    prefixes = new String[settings.poolSize()];
    suffixes = new String[settings.poolSize()];
    tokens = new int[settings.poolSize()];
    IntStream.range(0, prefixes.length).parallel().forEach(i -> {
      SplittableRandom r = Draws.forItem(settings.seed(), POOL_STREAM, i);
      int n = Math.max(2, settings.input().sample(r));
      int after = Math.max(1, n / 4);
      PromptSynthesizer.Synthesized before = settings.synthesizer().text(n - after, r);
      PromptSynthesizer.Synthesized rest = settings.synthesizer().text(after, r);
      prefixes[i] = before.text();
      suffixes[i] = "\n" + rest.text();
      tokens[i] = before.tokens() + rest.tokens();
    });
  }

  @Override
  public Conversation open(long session) {
    return new Burst(session, Draws.forItem(s.seed(), SESSION_STREAM, session));
  }

  /** One line for reports. */
  public String describe() {
    return "code completion: bursts of " + s.burst().describe() + " requests, keystroke gap " + s.keystroke().describe()
        + ", pause " + s.pause().describe() + ", prompts " + s.input().describe()
        + (s.cancelAfterNanos() > 0 ? ", cancelled after " + s.cancelAfterNanos() / 1_000_000 + " ms" : "");
  }

  private final class Burst implements TypingConversation {
    private final long session;
    private final SplittableRandom random;
    private final int planned;
    private final String lead;
    private final int doc;
    private int sent;

    Burst(long session, SplittableRandom random) {
      this.session = session;
      this.random = random;
      this.planned = Math.max(1, s.burst().sample(random));
      this.doc = random.nextInt(prefixes.length);
      // Led by the session's number: two bursts on one document are still two users' files.
      this.lead = "// file " + session + "\n";
    }

    @Override
    public RequestSpec next(long id) {
      if (sent >= planned) {
        throw new IllegalStateException("burst of session " + session + " already sent its " + planned + " requests");
      }
      sent++;
      StringBuilder typed = new StringBuilder(sent);
      for (int k = 0; k < sent; k++) {
        typed.append(TYPED.charAt(k % TYPED.length()));
      }
      String prefix = lead + prefixes[doc] + "\n" + typed;
      TokenEstimator e = s.synthesizer().estimator();
      int count = tokens[doc] + e.count(lead) + e.count(typed);
      OptionalInt max = s.output() == null ? OptionalInt.empty() : OptionalInt.of(s.output().sample(random));
      return new RequestSpec(id, new Prompt.Infill(prefix, suffixes[doc]), count, e.exact(), max,
          new SessionTurn(session, sent));
    }

    @Override
    public long keystrokeNanos() {
      return sent < planned ? s.keystroke().sampleNanos(random) : -1;
    }

    @Override
    public long cancelAfterNanos() {
      return s.cancelAfterNanos();
    }

    @Override
    public long pauseNanos() {
      return s.pause().sampleNanos(random);
    }

    /** Not called for a typing session (the engine ends it with its burst's last request). */
    @Override
    public boolean answered(dev.tokenmeter.core.request.RequestTimeline answer) {
      return false;
    }

    @Override
    public long thinkNanos() {
      return 0;
    }

    @Override
    public End end() {
      return sent >= planned ? End.TURNS : null;
    }
  }
}
