"""The Gitea adapter (service pattern): a Gitea server through its documented v1 REST API."""

from asil.plugins import AppPlugin

PLUGIN = AppPlugin(
    name="gitea",
    adapter="asil.adapters.gitea.adapter:GiteaAdapter",
    pattern="service",
    extensions=(".gitea",),
    checkpoints=("asil.adapters.gitea.checkpoints",),
    validator="asil.adapters.gitea.validator:raw_judge",
    builders={
        "gitea_seed": "asil.adapters.gitea.builders:build_gitea_seed",
    },
    suite="live/gitea",
    render=False,
)
