package dev.tokenmeter.testkit;

import dev.tokenmeter.core.loadgen.Conversation;
import dev.tokenmeter.core.loadgen.SessionSource;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A session source that passes every turn through to another and keeps what each session sent and
 * the answers it read, in turn order: for tests that check a conversation's requests against the
 * answers they followed. Thread-safe.
 */
public final class RecordingSessions implements SessionSource {
  private final SessionSource inner;
  private final Map<Long, List<RequestSpec>> sent = new ConcurrentHashMap<>();
  private final Map<Long, List<RequestTimeline>> answers = new ConcurrentHashMap<>();

  public RecordingSessions(SessionSource inner) {
    this.inner = inner;
  }

  /** The requests session {@code session} sent, in order; empty when it sent none. */
  public List<RequestSpec> sent(long session) {
    return List.copyOf(sent.getOrDefault(session, List.of()));
  }

  /** The answers each session read, in order, by session. */
  public Map<Long, List<RequestTimeline>> answersBySession() {
    Map<Long, List<RequestTimeline>> out = new java.util.TreeMap<>();
    answers.forEach((k, v) -> {
      synchronized (v) {
        out.put(k, List.copyOf(v));
      }
    });
    return out;
  }

  /** Every answer read, all sessions together. */
  public List<RequestTimeline> answers() {
    List<RequestTimeline> all = new ArrayList<>();
    answersBySession().values().forEach(all::addAll);
    return all;
  }

  @Override
  public Conversation open(long session) {
    Conversation c = inner.open(session);
    List<RequestSpec> specs = sent.computeIfAbsent(session, k -> Collections.synchronizedList(new ArrayList<>()));
    List<RequestTimeline> got = answers.computeIfAbsent(session, k -> Collections.synchronizedList(new ArrayList<>()));
    return new Conversation() {
      @Override
      public RequestSpec next(long id) {
        RequestSpec s = c.next(id);
        if (s != null) {
          specs.add(s);
        }
        return s;
      }

      @Override
      public boolean answered(RequestTimeline answer) {
        got.add(answer);
        return c.answered(answer);
      }

      @Override
      public long thinkNanos() {
        return c.thinkNanos();
      }

      @Override
      public End end() {
        return c.end();
      }
    };
  }
}
