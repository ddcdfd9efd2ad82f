-- The prompt's block hashes (proxy trace capture, docs/PROXY.md "Capturing a trace"): keyed,
-- chained HMAC-SHA256 hashes of the prompt's text in fixed-size blocks of characters, 48 bits
-- each as 12 hex digits, comma-separated, after the block size and a colon
-- (256:0a1b2c3d4e5f,...); never the text. prompt_chars: the length of the text
-- hashed, for the characters-per-token ratio proxy export-trace sizes its blocks with.
-- Both NULL when capture is off, for requests with no prompt, and in rows written before V4.
ALTER TABLE requests ADD COLUMN prompt_blocks TEXT;
ALTER TABLE requests ADD COLUMN prompt_chars INTEGER;
