"""RLlib (new API stack): the env adapter, the masked PPO module as an agent, league play.

Needs the ``rllib`` extra; nothing here is imported unless RLlib is asked for."""
