# shipped: https://github.com/jcwleo/random-network-distillation-pytorch/pull/14
# Rollout collected the agent's (GPU) policy logits in a list and np.vstack-ed them; fixed by storing policy.cpu().numpy() per step.
import numpy as np
import torch

from agents import RNDAgent


def rollout(env_conns, states, num_steps, use_cuda):
    agent = RNDAgent(use_cuda=use_cuda)
    states_all, policies = [], []
    for _ in range(num_steps):
        actions, value_ext, value_int, policy = agent.get_action(np.float32(states) / 255.0)
        for conn, act in zip(env_conns, actions):
            conn.send(act)
        states = np.stack([conn.recv()[0] for conn in env_conns])
        states_all.append(states)
        policies.append(policy)
    states_all = np.stack(states_all)
    logged_policy = np.vstack(policies)  # expect: DEV006
    return states_all, logged_policy
