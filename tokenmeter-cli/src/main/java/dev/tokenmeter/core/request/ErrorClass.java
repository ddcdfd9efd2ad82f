package dev.tokenmeter.core.request;

/** The classes failures are counted in. {@link #wireName()} is the name used in JSON and tables. */
public enum ErrorClass {
  CONNECT("connect"),
  HTTP_429("http_429"),
  HTTP_4XX("http_4xx"),
  HTTP_5XX("http_5xx"),
  TIMEOUT_FIRST_TOKEN("timeout_first_token"),
  TIMEOUT_IDLE("timeout_idle"),
  TIMEOUT_TOTAL("timeout_total"),
  PROTOCOL("protocol"),
  STREAM_ERROR("stream_error"),
  TRUNCATED("truncated"),
  CONTENT_FILTER("content_filter"),
  CANCELLED("cancelled");

  private final String wireName;

  ErrorClass(String wireName) {
    this.wireName = wireName;
  }

  /** Stable snake_case name used in summary.json, requests.jsonl and tables. */
  public String wireName() {
    return wireName;
  }

  /** The class of an HTTP status other than 2xx. */
  public static ErrorClass ofHttpStatus(int status) {
    if (status == 429) {
      return HTTP_429;
    }
    return status >= 500 ? HTTP_5XX : HTTP_4XX;
  }
}
