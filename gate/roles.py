"""The reviewers' roles, declared: the finish gate and the best-of-N judge."""

from stateact.kernel.roles import Role, register_role

register_role(Role("gate", prepare="stateact.gate.review.finish_gate:prepare_gate"))
register_role(Role("judge", model_help="Model spec of the best-of-N judge (default: the main model)."))
