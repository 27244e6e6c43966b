# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment nb jupyter/scipy-notebook:2024-05-27 | jq ".metadata.labels[\"notebook-name\"] = \"alice\"" | pod_from_template StatefulSet alice kubeflow-user | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
