-- The conversation key the client sent (proxy --conversation-header, OpenAI's prompt_cache_key or
-- user, Anthropic's metadata.user_id): proxy export-workload groups a conversation's turns by it.
-- NULL when the client sent none, and in rows written before V3.
ALTER TABLE requests ADD COLUMN conversation TEXT;
