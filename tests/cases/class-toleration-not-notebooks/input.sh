# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment nb registry.example.com/nb:1 | jq ".metadata.labels = {\"notebook-name\": \"nb\"}" | pod_from_template StatefulSet nb user-a | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
