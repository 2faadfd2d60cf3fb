# shipped: https://github.com/Linesight-RL/linesight/pull/53
# Learner process built its scaler with the deprecated torch.cuda.amp.GradScaler(); replaced by torch.amp.GradScaler("cuda").
import torch

from trackmania_rl.agents import iqn


def learner_process(config, online, target, save_dir, rollout_queue):
    try:
        online.load_state_dict(torch.load(save_dir / "weights1.torch"))
        target.load_state_dict(torch.load(save_dir / "weights2.torch"))
    except Exception:
        print("Learner could not load weights")
    optimizer = torch.optim.RAdam(online.parameters(), lr=config.lr, eps=config.adam_epsilon)
    scaler = torch.cuda.amp.GradScaler()  # expect: DEV008
    trainer = iqn.Trainer(online, target, optimizer, scaler, config.batch_size, config.iqn_n)
    while True:
        batch = rollout_queue.get()
        trainer.train_on_batch(batch)
        tau = torch.linspace(0.05, 0.95, config.iqn_k)[:, None].to("cuda")
        trainer.log_quantiles(tau)
