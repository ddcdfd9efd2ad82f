-- Which proxy process wrote the row (proxy --proxy-id; default HOST:PID), so that each proxy of a
-- fleet can read the spend of the others for its budgets. NULL in rows written before V2.
ALTER TABLE requests ADD COLUMN proxy_id TEXT;
