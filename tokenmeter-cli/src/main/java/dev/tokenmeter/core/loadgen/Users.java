package dev.tokenmeter.core.loadgen;

import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.metrics.SessionRecorder;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.RequestTimeline;

/**
 * The users behind a stage's requests, and what each does after a request: a closed-loop user sends
 * its next request after its think time (at once without one, after {@link
 * #CONNECT_FAILURE_PAUSE_NANOS} when it could not connect); a session's next turn follows its think
 * time, a failed turn ends it; a typing burst ({@link TypingConversation}) sends its next keystroke's
 * request on the user's clock, superseding the one before, and cancels a request past its
 * cancel-after deadline. Owns the stage's sessions: it opens them, numbers them and records their
 * ends. Open-loop turns go through {@link OpenLoop#arrive}, so they queue behind {@code
 * --max-concurrency} like arrivals. Loop-confined.
 */
final class Users {
  /**
   * A closed-loop user whose request could not even connect waits this long before its next one,
   * so a dead server is not hammered with thousands of connects per second (and requests.jsonl not
   * flooded with them).
   */
  static final long CONNECT_FAILURE_PAUSE_NANOS = 100_000_000L; // 100 ms

  private final StageRunner stage;
  /** The stage's source as a session source, null when its requests are independent. */
  private final SessionSource sessions;
  private long nextSessionId;

  Users(StageRunner stage, SessionSource sessions) {
    this.stage = stage;
    this.sessions = sessions;
  }

  /** A new session, its first turn scheduled at {@code scheduledNanos}. */
  Session open(long scheduledNanos) {
    long sid = nextSessionId++;
    Session session = new Session(sid, sessions.open(sid), scheduledNanos);
    stage.recorder().sessions().started();
    return session;
  }

  /**
   * {@code session}'s first turn alone exceeds the context limit: the session ends unsent, and a
   * closed-loop user opens its next one after a pause, not in a hot loop of sessions that never fit.
   */
  void firstTurnTooLong(Session session, long scheduledNanos) {
    session.end(stage.recorder().sessions(), Session.ending(session.conversation.end()), scheduledNanos);
    if (stage.plan.load() instanceof LoadModel.Closed) {
      long next = stage.ticker.nanos() + CONNECT_FAILURE_PAUSE_NANOS;
      stage.loop.schedule(() -> stage.issue(next, next, null), CONNECT_FAILURE_PAUSE_NANOS);
    }
  }

  /**
   * {@code f}, just issued, is a keystroke's request: schedules the burst's next request, which
   * supersedes {@code f} if it is still in flight then, and the {@code --cancel-after} deadline.
   */
  void typed(Flight f, TypingConversation typing, long scheduledNanos) {
    long gap = typing.keystrokeNanos();
    long cancelAfter = typing.cancelAfterNanos();
    if (gap >= 0) {
      f.followed = true;
      long next = scheduledNanos + gap; // the user's clock, not the send's
      stage.loop.schedule(() -> keystroke(f, next), Math.max(0, next - stage.ticker.nanos()));
    }
    if (cancelAfter > 0) {
      stage.loop.schedule(() -> {
        if (!stage.stopping() && f.index >= 0) {
          f.exchange.abort(new Outcome.Cancelled(TypingConversation.CANCEL_AFTER));
        }
      }, cancelAfter);
    }
  }

  /** The next keystroke of {@code f}'s burst, due at {@code dueNanos}: cancels {@code f} if still in flight, sends the next. */
  private void keystroke(Flight f, long dueNanos) {
    if (stage.stopping()) {
      return;
    }
    if (f.index >= 0) {
      f.exchange.abort(new Outcome.Cancelled(TypingConversation.SUPERSEDED));
    }
    if (stage.open != null) {
      stage.open.arrive(dueNanos, f.session);
    } else {
      stage.issue(dueNanos, dueNanos, f.session);
    }
  }

  /**
   * {@code f}, not a keystroke's request with a successor, ended at {@code nanos} with timeline
   * {@code t} while the stage runs: its user goes on (closed loop) or its session's next turn
   * arrives (open loop, which then issues what waited for the slot).
   */
  void after(Flight f, RequestTimeline t, long nanos) {
    Session session = f.session == null ? null : continued(f.session, t, nanos);
    switch (stage.plan.load()) {
      case LoadModel.Closed c -> {
        long pause = session != null ? session.conversation.thinkNanos() : c.thinkTimeNanos();
        if (session == null && f.session != null && f.session.conversation instanceof TypingConversation typing) {
          pause = typing.pauseNanos(); // the user's pause between bursts
        }
        if (t.outcome().errorClass() == ErrorClass.CONNECT) {
          pause = Math.max(pause, CONNECT_FAILURE_PAUSE_NANOS);
        }
        long next = nanos + pause;
        if (pause == 0) {
          long now = stage.ticker.nanos();
          stage.issue(now, now, session);
        } else if (next < stage.window.acceptUntilNanos()) {
          stage.loop.schedule(() -> stage.issue(next, next, session), pause);
        }
      }
      case LoadModel.Open o -> {
        if (session != null) {
          long pause = session.conversation.thinkNanos();
          long next = nanos + pause;
          if (pause == 0) {
            stage.open.arrive(stage.ticker.nanos(), session);
          } else if (next < stage.window.acceptUntilNanos()) {
            stage.loop.schedule(() -> stage.open.arrive(next, session), pause);
          }
        }
        stage.open.drainWaiting();
      }
    }
  }

  /**
   * {@code session} after its turn {@code t} ended at {@code nanos}: itself when another turn
   * follows, else null, its end recorded (a failed turn ends it: its answer cannot be appended).
   */
  private Session continued(Session session, RequestTimeline t, long nanos) {
    if (session.conversation instanceof TypingConversation) {
      // A burst's last request ends its session; cancelled by --cancel-after is the user's doing.
      boolean failed = !t.outcome().succeeded() && t.outcome().errorClass() != ErrorClass.CANCELLED;
      if (t.outcome().succeeded()) {
        session.answered(t);
      }
      SessionRecorder.Ending how = failed ? SessionRecorder.Ending.ERROR : SessionRecorder.Ending.FINISHED;
      session.end(stage.recorder().sessions(), how, nanos);
      return null;
    }
    if (!t.outcome().succeeded()) {
      session.end(stage.recorder().sessions(), SessionRecorder.Ending.ERROR, nanos);
      return null;
    }
    session.answered(t);
    if (session.conversation.answered(t)) {
      return session;
    }
    session.end(stage.recorder().sessions(), Session.ending(session.conversation.end()), nanos);
    return null;
  }
}
