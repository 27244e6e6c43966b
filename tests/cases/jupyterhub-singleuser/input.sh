# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment jupyter-bob jupyterhub/singleuser:4 | jq ".metadata.labels = {\"component\": \"singleuser-server\", \"hub.jupyter.org/username\": \"bob\"}" | pod_from_template "" jupyter-bob jhub | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
