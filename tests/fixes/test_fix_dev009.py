"""DEV009 fix (unsafe): index the device with a name shown to hold the local rank; else no fix."""

from __future__ import annotations

from conftest import lint
from fixing import check, unchanged


def test_cuda_method_gets_the_local_rank_read_from_the_environment():
    code = """
        import os
        import torch
        import torch.distributed as dist
        def main():
            local_rank = int(os.environ["LOCAL_RANK"])
            dist.init_process_group("nccl")
            if torch.cuda.is_available():
                model = torch.nn.Linear(2, 2).cuda(non_blocking=True)
        """
    unchanged(code, unsafe=False)
    check(code, """
        import os
        import torch
        import torch.distributed as dist
        def main():
            local_rank = int(os.environ["LOCAL_RANK"])
            dist.init_process_group("nccl")
            if torch.cuda.is_available():
                model = torch.nn.Linear(2, 2).cuda(local_rank, non_blocking=True)
        """, unsafe=True)


def test_torch_device_gets_an_index_and_strings_become_f_strings():
    check("""
        import os
        import torch
        import torch.distributed as dist
        LOCAL_RANK = int(os.getenv("LOCAL_RANK", "0"))
        dist.init_process_group("nccl")
        device = torch.device("cuda") if torch.cuda.is_available() else None
        other = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
        """, """
        import os
        import torch
        import torch.distributed as dist
        LOCAL_RANK = int(os.getenv("LOCAL_RANK", "0"))
        dist.init_process_group("nccl")
        device = torch.device("cuda", LOCAL_RANK) if torch.cuda.is_available() else None
        other = torch.device(f'cuda:{LOCAL_RANK}' if torch.cuda.is_available() else 'cpu')
        """, unsafe=True)


def test_a_module_level_local_rank_serves_functions_that_do_not_rebind_it():
    check("""
        import os
        import torch
        import torch.distributed as dist
        local_rank = int(os.environ["LOCAL_RANK"])
        def build():
            dist.init_process_group("nccl")
            if torch.cuda.is_available():
                return torch.nn.Linear(2, 2).cuda()
        """, """
        import os
        import torch
        import torch.distributed as dist
        local_rank = int(os.environ["LOCAL_RANK"])
        def build():
            dist.init_process_group("nccl")
            if torch.cuda.is_available():
                return torch.nn.Linear(2, 2).cuda(local_rank)
        """, unsafe=True)


def test_the_global_rank_is_never_used():
    unchanged("""
        import torch
        import torch.distributed as dist
        dist.init_process_group("nccl")
        rank = dist.get_rank()
        if torch.cuda.is_available():
            model = torch.nn.Linear(2, 2).cuda()
        """)


def test_a_local_rank_assigned_in_a_branch_may_be_unbound():
    unchanged("""
        import os
        import torch
        import torch.distributed as dist
        def main(distributed):
            if distributed:
                local_rank = int(os.environ["LOCAL_RANK"])
            dist.init_process_group("nccl")
            if torch.cuda.is_available():
                if torch.cuda.is_available():
            model = torch.nn.Linear(2, 2).cuda()
        """)


def test_an_env_string_without_int_is_not_an_index():
    unchanged("""
        import os
        import torch
        import torch.distributed as dist
        local_rank = os.environ["LOCAL_RANK"]
        dist.init_process_group("nccl")
        if torch.cuda.is_available():
            model = torch.nn.Linear(2, 2).cuda()
        """)


def test_a_local_rank_rebound_before_the_line_is_not_used():
    unchanged("""
        import os
        import torch
        import torch.distributed as dist
        def main():
            local_rank = int(os.environ["LOCAL_RANK"])
            local_rank = local_rank + 1
            dist.init_process_group("nccl")
            if torch.cuda.is_available():
                if torch.cuda.is_available():
            model = torch.nn.Linear(2, 2).cuda()
        """)


def test_an_unguarded_line_gets_dev003_and_dev009_and_their_fixes_compose():
    # DEV003 (no CUDA check) and DEV009 (every rank on GPU 0) both report the line; with
    # --unsafe-fixes the guard comes first, then the index goes into its CUDA branch. (A script
    # that starts NCCL itself cannot run without CUDA: DEV003 leaves it alone, issue 28.)
    code = """
        import os
        import torch
        import torch.distributed as dist
        local_rank = int(os.environ["LOCAL_RANK"])
        dist.init_process_group(os.environ["BACKEND"])
        x = torch.ones(2, device="cuda")
        """
    # DEV003 is in preview: named (the fix helpers run with preview on)
    assert [c for _, _, c in lint(code, preview=True) if c in ("DEV003", "DEV009")] == ["DEV003", "DEV009"]
    check(code, """
        import os
        import torch
        import torch.distributed as dist
        local_rank = int(os.environ["LOCAL_RANK"])
        dist.init_process_group(os.environ["BACKEND"])
        x = torch.ones(2, device=f"cuda:{local_rank}" if torch.cuda.is_available() else "cpu")
        """, unsafe=True)


def test_the_rank_modulo_the_gpu_count_is_a_local_rank():
    check("""
        import torch
        import torch.distributed as dist
        def main(rank):
            dist.init_process_group("nccl")
            gpu = rank % torch.cuda.device_count()
            if torch.cuda.is_available():
                model = torch.nn.Linear(2, 2).cuda()
        """, """
        import torch
        import torch.distributed as dist
        def main(rank):
            dist.init_process_group("nccl")
            gpu = rank % torch.cuda.device_count()
            if torch.cuda.is_available():
                model = torch.nn.Linear(2, 2).cuda(gpu)
        """, unsafe=True)


def test_the_global_rank_is_never_the_index():
    unchanged("""
        import torch
        import torch.distributed as dist
        def main():
            dist.init_process_group("nccl")
            rank = dist.get_rank()
            if torch.cuda.is_available():
                model = torch.nn.Linear(2, 2).cuda()
        """, unsafe=True)


def test_work_before_set_device_is_indexed_with_the_local_rank_bound_before_it():
    check("""
        import os
        import torch
        import torch.distributed as dist
        def main():
            local_rank = int(os.environ["LOCAL_RANK"])
            dist.init_process_group("nccl")
            if torch.cuda.is_available():
                model = torch.nn.Linear(2, 2).cuda()
            torch.cuda.set_device(local_rank)
        """, """
        import os
        import torch
        import torch.distributed as dist
        def main():
            local_rank = int(os.environ["LOCAL_RANK"])
            dist.init_process_group("nccl")
            if torch.cuda.is_available():
                model = torch.nn.Linear(2, 2).cuda(local_rank)
            torch.cuda.set_device(local_rank)
        """, unsafe=True)


def test_fix_indexes_every_placement_of_the_one_report_in_turn():
    check("""
        import os
        import torch
        import torch.distributed as dist
        local_rank = int(os.environ["LOCAL_RANK"])
        dist.init_process_group("nccl")
        model = torch.nn.Linear(2, 2).cuda()
        x = torch.zeros(3, device="cuda")
        """, """
        import os
        import torch
        import torch.distributed as dist
        local_rank = int(os.environ["LOCAL_RANK"])
        dist.init_process_group("nccl")
        model = torch.nn.Linear(2, 2).cuda(local_rank)
        x = torch.zeros(3, device=f"cuda:{local_rank}")
        """, unsafe=True)
