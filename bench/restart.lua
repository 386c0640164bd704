-- wrk script for bench/restart.js: the requests cycle over RESTART_PATHS (comma-separated), and
-- every answer's status is counted. At the end it prints the RESULT line of bench/report.lua
-- (the same fields, parsed by bench/lib/wrk.js resultLine):
--   RESULT requests=N bytes=N duration_us=N mean_us=N p50_us=N p90_us=N p99_us=N max_us=N
--          statuses=200:N,… connect=N read=N write=N timeout=N status_errors=N
--
--   RESTART_PATHS=/api/users/,/healthz wrk -t1 -c32 -d8s -s bench/restart.lua http://127.0.0.1:PORT

local paths = {}
for path in string.gmatch(os.getenv("RESTART_PATHS") or "/", "[^,]+") do
  table.insert(paths, path)
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

local next_path = 0

function request()
  next_path = next_path % #paths + 1
  return wrk.format("GET", paths[next_path])
end

statuses = {}  -- global: done() reads it from every thread with thread:get

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
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
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d bytes=%d duration_us=%d mean_us=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d statuses=%s connect=%d read=%d write=%d timeout=%d status_errors=%d\n",
    summary.requests, summary.bytes, summary.duration, latency.mean, latency:percentile(50),
    latency:percentile(90), latency:percentile(99), latency.max,
    (#list > 0) and table.concat(list, ",") or "none",
    e.connect, e.read, e.write, e.timeout, e.status))
end
