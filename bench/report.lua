-- wrk script for bench/read.js: one result line that bench/lib/wrk.js parses, and optionally every
-- answer's status counted.
--
--   [WRK_STATUSES=1] wrk -t1 -c32 -d5s [-H 'If-None-Match: "…"'] -s bench/report.lua URL
--
-- At the end it prints (latencies in microseconds, from wrk's own histogram, the one its
-- --latency table shows):
--   RESULT requests=N bytes=N duration_us=N mean_us=N p50_us=N p90_us=N p99_us=N max_us=N
--          statuses=304:N,200:N|unknown connect=N read=N write=N timeout=N status_errors=N
-- bytes counts every byte read (status lines and headers included), which lets read.js check
-- that the answers had the expected size. status_errors is wrk's own count of answers >= 400.
--
-- With WRK_STATUSES=1, a response() function counts the answers by status (read.js uses it
-- where a 304 must be told from a 200: wrk counts neither as an error). Without it, no
-- response() is defined and wrk does not hand each answer's headers and body to Lua: the
-- load generator's cost per request stays the one of plain wrk (statuses=unknown).
-- The request itself is wrk's static one (URL and -H headers): no request() here.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

statuses = {}  -- global: done() reads it from every thread with thread:get

if os.getenv("WRK_STATUSES") == "1" then
  function response(status, headers, body)
    statuses[status] = (statuses[status] or 0) + 1
  end
end

function done(summary, latency, requests)
  local parts = "unknown"
  if os.getenv("WRK_STATUSES") == "1" then
    local total, keys, list = {}, {}, {}
    for _, thread in ipairs(threads) do
      local counts = thread:get("statuses")
      if counts ~= nil then
        for status, count in pairs(counts) do total[status] = (total[status] or 0) + count end
      end
    end
    for status in pairs(total) do table.insert(keys, status) end
    table.sort(keys)
    for _, status in ipairs(keys) do table.insert(list, status .. ":" .. total[status]) end
    parts = (#list > 0) and table.concat(list, ",") or "none"
  end
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d bytes=%d duration_us=%d mean_us=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d statuses=%s connect=%d read=%d write=%d timeout=%d status_errors=%d\n",
    summary.requests, summary.bytes, summary.duration, latency.mean, latency:percentile(50),
    latency:percentile(90), latency:percentile(99), latency.max, parts,
    e.connect, e.read, e.write, e.timeout, e.status))
end
