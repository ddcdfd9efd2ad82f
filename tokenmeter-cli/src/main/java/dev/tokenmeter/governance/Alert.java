package dev.tokenmeter.governance;

/**
 * What the proxy's governance tells its operator: a budget's threshold notice, an SLO alert firing
 * or resolving, a drift notice. Each has its log line; {@link WebhookNotifier} posts each as JSON
 * with its {@code kind}.
 */
public sealed interface Alert permits Notice, SloAlert, DriftNotice {

  /** The one line the proxy logs, without the {@code tokenmeter proxy: } prefix. */
  String line();

  /** A few words naming this alert in a log line about its delivery ("the 80% notice of tenant 'acme'"). */
  String what();
}
