"""The secret police's one-time power (V3.3): the target dies ("secret_police") if a killer (a role that nods),
else nothing happens. Once per game; while unspent (or spent this very night, decision) it keeps its holder safe
from the killers' kill."""

from controller.rules.ability import Ability, register

ABILITY = register(Ability("secret_kill", ("V3.3",), effect="lethal", cause="secret_police", nod_only=True, rank=3,
                           once_mark="spent", shields_holder=True, protects_from=("killed",)))
