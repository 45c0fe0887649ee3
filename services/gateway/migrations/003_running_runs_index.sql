-- Runs still running (the sweeper's scan for charged runs no instance will finish).
CREATE INDEX runs_running ON runs (created_at) WHERE outcome = 'running';
