package dev.tokenmeter.workload;

/**
 * A workload could not be loaded or built. The message is written for the person running the tool:
 * it names the file and line ({@code prompts.jsonl:3: ...}), what is wrong and how to fix it, and
 * is fit to print as is.
 */
public final class WorkloadException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public WorkloadException(String message) {
    super(message);
  }

  public WorkloadException(String message, Throwable cause) {
    super(message, cause);
  }
}
