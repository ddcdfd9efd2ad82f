package dev.tokenmeter.workload;

import dev.tokenmeter.core.loadgen.Conversation;
import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.SessionTurn;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * A conversation whose history grows by each user message and the server's answer, with a running
 * token count and a context limit: the part {@link SyntheticSessions} and {@link FileSessions}
 * share. Subclasses supply the user messages ({@link #draw}); nothing here re-reads the history
 * (see SyntheticSessions' design notes). Loop-confined.
 */
abstract class GrowingConversation implements Conversation {
  private static final TokenEstimator ANSWER_ESTIMATE = TokenEstimator.heuristic();

  /** One user message to send: its text, its token count, the {@code max_tokens} to ask. */
  record Next(String text, int tokens, OptionalInt maxTokens) {}

  private final long session;
  private final int planned;
  private final int maxContext;
  private final List<Message> history = new ArrayList<>();
  private int turn; // turns sent
  /** The client's count of the prompt last sent. */
  private int promptTokens;
  private Next next;
  private End end;

  /**
   * @param planned turns to send at most
   * @param maxContext the largest prompt to send, tokens; 0 for no limit
   * @param system the system message every turn starts with, or null
   * @param systemTokens its tokens
   */
  GrowingConversation(long session, int planned, int maxContext, Message system, int systemTokens) {
    this.session = session;
    this.planned = planned;
    this.maxContext = maxContext;
    if (system != null) {
      history.add(system);
    }
    promptTokens = systemTokens;
  }

  /** The user message of turn {@code turn} (1-based), drawn when the turn before it was answered. */
  abstract Next draw(int turn);

  private boolean fits(long prompt) {
    return maxContext == 0 || prompt <= maxContext;
  }

  @Override
  public RequestSpec next(long id) {
    if (end != null) {
      throw new IllegalStateException("session " + session + " has ended");
    }
    if (turn == 0) {
      next = draw(1);
      if (!fits((long) promptTokens + next.tokens())) {
        end = End.MAX_CONTEXT;
        return null;
      }
    }
    history.add(new Message("user", next.text()));
    promptTokens += next.tokens();
    turn++;
    return new RequestSpec(id, new Prompt.Chat(history), promptTokens, false, next.maxTokens(),
        new SessionTurn(session, turn));
  }

  @Override
  public boolean answered(RequestTimeline answer) {
    String text = answer.content().toString();
    history.add(new Message("assistant", text));
    int completion = answer.usageCompletionTokens();
    int answerTokens = completion >= 0
        ? Math.max(0, completion - Math.max(0, answer.usageReasoningTokens()))
        : ANSWER_ESTIMATE.count(text);
    promptTokens += answerTokens;
    if (turn >= planned) {
      end = End.TURNS;
      return false;
    }
    next = draw(turn + 1);
    // The server's count includes the chat template: the larger of the two guards the limit.
    long sent = Math.max(promptTokens - answerTokens, answer.usagePromptTokens());
    if (!fits(sent + answerTokens + next.tokens())) {
      end = End.MAX_CONTEXT;
      return false;
    }
    return true;
  }

  @Override
  public End end() {
    return end;
  }
}
