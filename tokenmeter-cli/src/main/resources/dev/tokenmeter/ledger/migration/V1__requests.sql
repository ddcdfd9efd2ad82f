-- One row per request the metering proxy saw (ledger.MeteredRequest). Column names are the
-- snake_case forms of its components, times in milliseconds as in requests.jsonl; unknown values
-- are NULL. One file for SQLite and PostgreSQL: every type here is valid in both (SQLite maps
-- BIGINT/INTEGER to INTEGER, DOUBLE PRECISION to REAL, BOOLEAN to 0/1).
CREATE TABLE requests (
  request_id           TEXT             NOT NULL,
  started_at_epoch_ms  BIGINT           NOT NULL,
  tenant               TEXT             NOT NULL,
  model                TEXT,
  upstream             TEXT             NOT NULL,
  endpoint             TEXT             NOT NULL,
  streamed             BOOLEAN          NOT NULL,
  http_status          INTEGER,
  error_class          TEXT,
  error                TEXT,
  finish_reason        TEXT,
  input_tokens         INTEGER,
  output_tokens        INTEGER,
  output_tokens_source TEXT,
  reasoning_tokens     INTEGER,
  cached_tokens        INTEGER,
  proxy_queue_ms       DOUBLE PRECISION,
  ttft_ms              DOUBLE PRECISION,
  tpot_ms              DOUBLE PRECISION,
  decode_tps           DOUBLE PRECISION,
  e2e_ms               DOUBLE PRECISION,
  itl_p50_ms           DOUBLE PRECISION,
  itl_p99_ms           DOUBLE PRECISION,
  itl_max_ms           DOUBLE PRECISION,
  chunks               INTEGER          NOT NULL,
  in_flight_at_start   INTEGER          NOT NULL,
  cost                 DOUBLE PRECISION,
  currency             TEXT
);

-- `proxy usage` reads a time window, for every tenant or for one.
CREATE INDEX requests_started_at ON requests (started_at_epoch_ms);
CREATE INDEX requests_tenant_started_at ON requests (tenant, started_at_epoch_ms);
