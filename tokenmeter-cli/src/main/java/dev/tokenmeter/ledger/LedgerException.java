package dev.tokenmeter.ledger;

/**
 * The ledger cannot be opened, read or written. The message is one line that names the ledger
 * (never its password) and what to do; the cause, when there is one, holds the driver's detail.
 */
public final class LedgerException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  LedgerException(String message) {
    super(message);
  }

  LedgerException(String message, Throwable cause) {
    super(message, cause);
  }
}
