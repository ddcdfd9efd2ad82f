package dev.tokenmeter.workload;

import dev.tokenmeter.core.loadgen.Conversation;
import dev.tokenmeter.core.loadgen.SessionSource;
import dev.tokenmeter.core.request.Message;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * Recorded conversations replayed turn by turn ({@code bench --turns SPEC --prompts FILE}): the
 * multi-turn records of a ShareGPT ({@code "conversations"}) or OpenAI ({@code "messages"}) file,
 * used in file order, session {@code n} replaying conversation {@code n mod count}. Each turn sends
 * the recorded system prompt, the recorded user turns so far and the model's own answers (not the
 * recorded ones) as the assistant turns. A session sends at most the turns drawn from {@code turns}
 * and at most the conversation's user turns; it ends earlier at the context limit. Messages are
 * counted once, at construction, in parallel; a turn's count is then a running sum, as in {@link
 * SyntheticSessions}. Thread-safe source; conversations are loop-confined.
 */
public final class FileSessions implements SessionSource {
  private final List<PromptFile.Entry> conversations;
  private final int[] systemTokens;
  private final int[][] userTokens;
  private final LengthSpec turns;
  private final LengthSpec output;
  private final ThinkTime think;
  private final int maxContext;
  private final long seed;

  /**
   * @param file the prompt file
   * @param turns turns per session (capped by each conversation's user turns)
   * @param output {@code max_tokens} to ask for, or null to use each record's own (if any)
   * @param think pause between turns
   * @param maxContext the largest prompt to send, tokens; 0 for no limit
   * @param seed seeds the turn counts, output lengths and think times
   * @param estimator counts the messages
   * @throws WorkloadException when the file holds no conversation of 2 or more user turns
   */
  public FileSessions(PromptFile file, LengthSpec turns, LengthSpec output, ThinkTime think, int maxContext,
      long seed, TokenEstimator estimator) {
    this.conversations = multiTurn(file);
    if (conversations.isEmpty()) {
      throw new WorkloadException(file.path() + " holds no conversation of 2 or more user turns (ShareGPT"
          + " \"conversations\" or OpenAI \"messages\") to replay with --turns: give a multi-turn dataset, or leave"
          + " out --turns to send each record's first prompt");
    }
    this.turns = Objects.requireNonNull(turns, "turns");
    this.output = output;
    this.think = Objects.requireNonNull(think, "think");
    this.maxContext = maxContext;
    this.seed = seed;
    systemTokens = new int[conversations.size()];
    userTokens = new int[conversations.size()][];
    IntStream.range(0, conversations.size()).parallel().forEach(i -> {
      PromptFile.Recorded r = conversations.get(i).recorded();
      systemTokens[i] = r.system() == null ? 0 : estimator.count(r.system());
      userTokens[i] = r.userTurns().stream().mapToInt(estimator::count).toArray();
    });
  }

  /** The records of {@code file} with 2 or more user turns, in file order. */
  public static List<PromptFile.Entry> multiTurn(PromptFile file) {
    return file.entries().stream()
        .filter(e -> e.recorded() != null && e.recorded().userTurns().size() >= 2)
        .toList();
  }

  /** Conversations replayed. */
  public int size() {
    return conversations.size();
  }

  @Override
  public Conversation open(long session) {
    int index = (int) (session % conversations.size());
    PromptFile.Entry entry = conversations.get(index);
    PromptFile.Recorded recorded = entry.recorded();
    SplittableRandom random = Draws.forItem(seed, SyntheticSessions.SESSION_STREAM, session);
    int planned = Math.min(turns.sample(random), recorded.userTurns().size());
    Message system = recorded.system() == null ? null : new Message("system", recorded.system());
    return new GrowingConversation(session, planned, maxContext, system, systemTokens[index]) {
      @Override
      Next draw(int turn) {
        OptionalInt max = output == null ? entry.maxTokens() : OptionalInt.of(output.sample(random));
        return new Next(recorded.userTurns().get(turn - 1), userTokens[index][turn - 1], max);
      }

      @Override
      public long thinkNanos() {
        return think.sampleNanos(random);
      }
    };
  }
}
