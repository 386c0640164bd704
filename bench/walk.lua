-- wrk script for the read benchmark (bench/read.js): a list of pages of a collection, each once.
--
--   WALK_LIST_FILE=pages.txt WALK_THREADS=1 WALK_DONE_FILE=/tmp/x \
--     wrk -t1 -c1 -d300s -s bench/walk.lua 'http://127.0.0.1:PORT/api/space/openings/?page='
--
-- WALK_LIST_FILE holds the page numbers in the order to ask them, one per line (read.js writes
-- a shuffled list: every page, or distinct random deep pages). With -tK -cK (one connection per
-- thread: WALK_THREADS must be K), thread k asks for positions k, k+K, k+2K… of that list, so
-- that every page is asked for exactly once. The page number is appended to the URL's path.
--
-- Latency is timed here (CLOCK_MONOTONIC through LuaJIT's ffi), from the moment wrk asks for the
-- request to the moment the answer is complete: with one connection per thread, request() and
-- response() alternate, so each answer is the one of the last request. These are plain service
-- times, without wrk's correction for coordinated omission (which would add made-up samples).
-- After its last page a thread stops itself and appends a line to WALK_DONE_FILE; read.js then
-- interrupts wrk (SIGINT), which otherwise waits for -d to pass.
--
-- With WALK_PAGE=N instead of WALK_LIST_FILE, every request asks for page N, until wrk's -d is up
-- (timed the same way: the single-page runs of the read benchmark's step C2).
--
-- At the end it prints:
--   WALK pages=N planned=N elapsed_us=N mean_us=N p50_us=N p90_us=N p99_us=N max_us=N
--        statuses=200:N,... connect=N read=N write=N timeout=N
-- pages counts the answers received; planned is the length of the list (0 with WALK_PAGE). elapsed_us runs from the first
-- request of any thread to the last answer of any thread.

local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } walk_timespec;
  int clock_gettime(int clk_id, walk_timespec *tp);
]]
local CLOCK_MONOTONIC = 1
local ts = ffi.new("walk_timespec")
local function now_us()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
  return tonumber(ts.tv_sec) * 1000000 + tonumber(ts.tv_nsec) / 1000
end

local fixed = tonumber(os.getenv("WALK_PAGE") or "")
local list_file = os.getenv("WALK_LIST_FILE")
local nthreads = tonumber(os.getenv("WALK_THREADS") or "1")
local done_file = os.getenv("WALK_DONE_FILE")
local list = {}
if not fixed then
  if list_file == nil then error("walk.lua: set WALK_LIST_FILE (or WALK_PAGE)") end
  for line in io.lines(list_file) do
    local page = tonumber(line)
    if page then list[#list + 1] = page end
  end
end
local pages = fixed and 1 or #list
if pages < 1 then error("walk.lua: WALK_LIST_FILE lists no page") end
if nthreads == nil or nthreads < 1 then error("walk.lua: WALK_THREADS must be a whole number >= 1") end

local threads = {}

-- wrk calls request() once on the first thread's Lua state before the run, to check it
-- (script_verify_request): that call must not use up a page.
function setup(thread)
  thread:set("thread_index", #threads + 1)
  thread:set("verify_pending", #threads == 0)
  table.insert(threads, thread)
end

local order, position, sent_at
lat = {}        -- globals: done() reads them from every thread with thread:get
statuses = {}
first_us = nil
last_us = nil

function init(args)
  if thread_index > nthreads then error("walk.lua: more wrk threads than WALK_THREADS") end
  if fixed then
    order = setmetatable({}, { __index = function() return fixed end })
    position = thread_index
    return
  end
  order = list
  position = thread_index  -- the next position of `order` this thread asks for
end

local function page_request(page)
  return wrk.format("GET", wrk.path .. page)
end

function request()
  if verify_pending then
    verify_pending = false
    return page_request(order[thread_index])
  end
  -- Past its last page the thread has stopped; wrk may still want one request, never sent.
  local page = order[position] or order[thread_index]
  sent_at = now_us()
  if first_us == nil then first_us = sent_at end
  return page_request(page)
end

function response(status, headers, body)
  local t = now_us()
  lat[#lat + 1] = t - sent_at
  last_us = t
  statuses[status] = (statuses[status] or 0) + 1
  if fixed then return end
  position = position + nthreads
  if position > pages then
    wrk.thread:stop()
    if done_file then
      local f = io.open(done_file, "a")
      if f then
        f:write("thread " .. thread_index .. " done\n")
        f:close()
      end
    end
  end
end

function done(summary, latency, requests)
  local all, total, keys, list = {}, {}, {}, {}
  local t0, t1 = nil, nil
  for _, thread in ipairs(threads) do
    local l = thread:get("lat") or {}
    for _, v in ipairs(l) do all[#all + 1] = v end
    local counts = thread:get("statuses") or {}
    for status, count in pairs(counts) do total[status] = (total[status] or 0) + count end
    local a, b = thread:get("first_us"), thread:get("last_us")
    if a ~= nil and (t0 == nil or a < t0) then t0 = a end
    if b ~= nil and (t1 == nil or b > t1) then t1 = b end
  end
  table.sort(all)
  local n = #all
  local function pct(p)
    if n == 0 then return 0 end
    local rank = math.ceil(p / 100 * n)  -- nearest rank
    if rank < 1 then rank = 1 end
    return all[rank]
  end
  local sum = 0
  for _, v in ipairs(all) do sum = sum + v end
  for status in pairs(total) do table.insert(keys, status) end
  table.sort(keys)
  for _, status in ipairs(keys) do table.insert(list, status .. ":" .. total[status]) end
  local e = summary.errors
  io.write(string.format(
    "WALK pages=%d planned=%d elapsed_us=%d mean_us=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d statuses=%s connect=%d read=%d write=%d timeout=%d\n",
    n, fixed and 0 or pages, (t0 and t1) and (t1 - t0) or 0, (n > 0) and (sum / n) or 0, pct(50), pct(90), pct(99),
    (n > 0) and all[n] or 0, (#list > 0) and table.concat(list, ",") or "none",
    e.connect, e.read, e.write, e.timeout))
end
