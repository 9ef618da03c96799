# all-reduce under torchrun, for NCCL_DEBUG logs; MODE from env
import os, time, datetime, torch, torch.distributed as dist
mode = os.environ.get("MODE", "plain")
rank = int(os.environ["RANK"]); lr = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(lr)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=int(os.environ.get("TMO", "60"))), device_id=torch.device("cuda", lr))
x = torch.ones(64 << 20, device="cuda")
for i in range(3):
    dist.all_reduce(x)
torch.cuda.synchronize()
if mode == "straggler":
    if rank == 1:
        time.sleep(float(os.environ.get("SLEEP", "40")))
    dist.all_reduce(x)
    torch.cuda.synchronize()
if mode == "bw":
    for sz in [1 << 20, 16 << 20, 256 << 20, 1 << 30, 4 << 30]:
        y = torch.empty(sz // 4, device="cuda")
        for _ in range(5): dist.all_reduce(y)
        torch.cuda.synchronize(); n = 20; t = time.perf_counter()
        for _ in range(n): dist.all_reduce(y)
        torch.cuda.synchronize(); dt = (time.perf_counter() - t) / n
        W = dist.get_world_size()
        if rank == 0: print(f"torch all_reduce {sz} bytes time_us {dt*1e6:.1f} algbw {sz/dt/1e9:.2f} busbw {sz/dt/1e9*2*(W-1)/W:.2f}", flush=True)
dist.destroy_process_group()
