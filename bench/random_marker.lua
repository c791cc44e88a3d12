-- wrk script: every request asks BENCH_PATH with a random marker (a unix second drawn
-- uniformly from [BENCH_MARKER_LO, BENCH_MARKER_HI]) appended, so the run reads pages
-- all over the account's history instead of page 1 again and again. With BENCH_ACCOUNTS
-- (account ids separated by commas), each request also puts a random one of them in
-- place of "{account}" in the path, so the run reads all of those accounts.
local path = os.getenv("BENCH_PATH")
local lo = tonumber(os.getenv("BENCH_MARKER_LO"))
local hi = tonumber(os.getenv("BENCH_MARKER_HI"))
local key = os.getenv("BENCH_KEY") or ""
local accounts = {}
for id in string.gmatch(os.getenv("BENCH_ACCOUNTS") or "", "%d+") do
  accounts[#accounts + 1] = id
end
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
  local target = path
  if #accounts > 0 then
    target = string.gsub(path, "{account}", accounts[math.random(#accounts)])
  end
  return wrk.format("GET", target .. math.floor(lo + math.random() * (hi - lo)))
end
