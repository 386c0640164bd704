-- wrk script for bench/write.js: the door sensor's POST /api/space/openings/.
--
--   DOOR_TOKEN=<secret> DOOR_MODE=alternate|same DOOR_FIRST=true|false \
--     wrk -t1 -c8 -d5s -s bench/door.lua http://127.0.0.1:PORT/api/space/openings/
--
-- The secret comes from the environment (never a file, never the command line), sent as
-- `Authorization: Token <secret>`. DOOR_FIRST is the first body's is_open; DOOR_MODE=alternate
-- then flips it on every request (a counter per wrk thread: with one thread and one connection
-- every post records a change, 201), DOOR_MODE=same repeats it (no change: 200).
--
-- At the end it prints one line that bench/write.js parses (latencies in microseconds):
--   DOOR requests=N duration_us=N p50_us=N p99_us=N non2xx=N statuses=201:N,200:N
--        connect=N read=N write=N timeout=N

local mode = os.getenv("DOOR_MODE") or "alternate"
local first = os.getenv("DOOR_FIRST")
local secret = os.getenv("DOOR_TOKEN")
if secret == nil or secret == "" then error("door.lua: DOOR_TOKEN is not set") end
if mode ~= "alternate" and mode ~= "same" then error("door.lua: DOOR_MODE must be alternate or same") end
if first ~= "true" and first ~= "false" then error("door.lua: DOOR_FIRST must be true or false") end

local threads = {}

-- wrk calls request() once on the first thread before the run, to check the request
-- (script_verify_request in wrk 4): that call must not count, or the first post would repeat the
-- latest state. write.js's single-client run (every answer must be 201) catches any other wrk.
function setup(thread)
  thread:set("verify_calls", #threads == 0 and 1 or 0)
  table.insert(threads, thread)
end

local bodies, n
statuses = {}  -- global: done() reads it from every thread with thread:get

function init(args)
  local headers = {
    ["Authorization"] = "Token " .. secret,
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json",
  }
  local post = function(state)
    return wrk.format("POST", wrk.path, headers, '{"is_open": ' .. state .. '}')
  end
  local other = (first == "true") and "false" or "true"
  bodies = { post(first), post(other) }
  n = -(verify_calls or 0)
  statuses = {}
end

function request()
  n = n + 1
  if mode == "alternate" and n % 2 == 0 then return bodies[2] end  -- n = 0: the check
  return bodies[1]
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    local counts = thread:get("statuses")
    if counts ~= nil then
      for status, count in pairs(counts) do total[status] = (total[status] or 0) + count end
    end
  end
  local keys, parts, non2xx = {}, {}, 0
  for status in pairs(total) do table.insert(keys, status) end
  table.sort(keys, function(a, b) return a > b end)
  for _, status in ipairs(keys) do
    table.insert(parts, status .. ":" .. total[status])
    if status < 200 or status > 299 then non2xx = non2xx + total[status] end
  end
  local e = summary.errors
  io.write(string.format(
    "DOOR requests=%d duration_us=%d p50_us=%d p99_us=%d non2xx=%d statuses=%s connect=%d read=%d write=%d timeout=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), non2xx,
    (#parts > 0) and table.concat(parts, ",") or "none", e.connect, e.read, e.write, e.timeout))
end
