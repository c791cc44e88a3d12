-- wrk script: every request asks BENCH_PATH with a random marker (a unix second drawn
-- uniformly from [BENCH_MARKER_LO, BENCH_MARKER_HI]) appended, so the run reads pages
-- all over the account's history instead of page 1 again and again.
local path = os.getenv("BENCH_PATH")
local lo = tonumber(os.getenv("BENCH_MARKER_LO"))
local hi = tonumber(os.getenv("BENCH_MARKER_HI"))
local key = os.getenv("BENCH_KEY") or ""
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("number", threads)
end

function init(args)
  math.randomseed(os.time() * 100 + number)
  if key ~= "" then
    wrk.headers["Authorization"] = "Bearer " .. key
  end
end

function request()
  return wrk.format("GET", path .. math.floor(lo + math.random() * (hi - lo)))
end
