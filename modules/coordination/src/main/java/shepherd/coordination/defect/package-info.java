/** Negative-control switches of the coordinator (test kit only). */
package shepherd.coordination.defect;
